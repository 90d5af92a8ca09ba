import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { RecipientTokens } from '../message-refs/recipient-token';
import { FeedbackModule } from '../feedback/feedback.module';
import { SuppressionModule } from '../suppression/suppression.module';
import { OptOutLinks } from './opt-out-links';
import { PreferencesController } from './preferences.controller';
import { UnsubscribeController } from './unsubscribe.controller';

/**
 * The opt-out people can see: the unsubscribe page (and RFC 8058 one-click) and the
 * subscription page behind `{{unsubscribe_url}}` and `{{preferences_url}}`. The footer that
 * puts those links into mail lacking them is applied by the campaign delivery (opt-out-footer).
 */
@Module({
  imports: [AccountsModule, FeedbackModule, SuppressionModule],
  controllers: [UnsubscribeController, PreferencesController],
  providers: [RecipientTokens, OptOutLinks],
})
export class OptOutModule {}
