import { Module } from '@nestjs/common';
import { ApiAuthModule, AuthModule } from '../auth/auth.module';
import { TransactionalModule } from '../transactional/transactional.module';
import { SubmissionSmtpServer } from './submission-smtp.server';
import { SubmissionService } from './submission.service';

/**
 * SMTP submission on SUBMISSION_SMTP_PORT: loaded by the API process (`npm start`,
 * `start:api`) and alone by `npm run start:smtp` (submission-main.ts). Sends go through
 * TransactionalService, so the workers that send API messages send these too.
 */
@Module({
  // ApiAuthModule: the key cache's change listener (so keys are cached) and the rate limiter.
  imports: [AuthModule, ApiAuthModule, TransactionalModule],
  providers: [SubmissionService, SubmissionSmtpServer],
  exports: [SubmissionSmtpServer],
})
export class SubmissionModule {}
