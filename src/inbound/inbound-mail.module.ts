import { Module } from '@nestjs/common';
import { FeedbackModule } from '../feedback/feedback.module';
import { InboundMailService } from './inbound-mail.service';
import { InboundSmtpServer } from './inbound-smtp.server';
import { InboundStats } from './inbound-stats';

/**
 * Inbound mail: bounce reports, complaints and List-Unsubscribe mail on INBOUND_SMTP_PORT.
 * A worker's role (AppModule.worker() and `npm start`), not the API's: an --api-only process
 * does not listen, so any number of API processes can run beside one inbound port.
 */
@Module({
  imports: [FeedbackModule],
  providers: [InboundStats, InboundMailService, InboundSmtpServer],
  exports: [InboundSmtpServer, InboundStats],
})
export class InboundMailModule {}
