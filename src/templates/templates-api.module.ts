import { Module } from '@nestjs/common';
import { TemplatesDashboardController } from './templates-dashboard.controller';
import { TemplatesController } from './templates.controller';
import { TemplatesModule } from './templates.module';

/** The HTTP surface: /v1/templates and the dashboard's template pages. API processes only, so a worker never loads its controllers. */
@Module({
  imports: [TemplatesModule],
  controllers: [TemplatesController, TemplatesDashboardController],
})
export class TemplatesApiModule {}
