import { Module } from '@nestjs/common';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { TemplatesDashboardController } from './templates-dashboard.controller';
import { TemplatesController } from './templates.controller';
import { TemplatesRepository } from './templates.repository';
import { TemplatesService } from './templates.service';

@Module({
  // Preview renders against a real subscriber.
  imports: [SubscribersModule],
  controllers: [TemplatesController, TemplatesDashboardController],
  providers: [TemplatesRepository, TemplatesService],
  exports: [TemplatesService],
})
export class TemplatesModule {}
