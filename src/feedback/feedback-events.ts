import type { MailEvent, EventMessage } from '../stats/mail-events';
import type { FeedbackReport } from '../message-refs/feedback-report';
import type { LocatedMessage } from './sent-message-lookup';

/** A report acted on, as a mail event: a bounce, a complaint or an unsubscribe. */
export function feedbackMailEvent(message: LocatedMessage, report: FeedbackReport): MailEvent {
  const ref: EventMessage = message.campaignId
    ? { campaignId: message.campaignId, subscriberId: message.subscriberId! }
    : {
        transactionalId: message.transactionalMessageId!,
        email: message.emailNormalized,
        subscriberId: message.subscriberId,
      };
  switch (report.kind) {
    case 'hard_bounce':
    case 'soft_bounce':
      return {
        kind: 'bounced',
        message: ref,
        hard: report.kind === 'hard_bounce',
        source: report.source,
        statusCode: report.statusCode ?? null,
      };
    case 'complaint':
      return { kind: 'complained', message: ref, source: report.source };
    case 'unsubscribe':
      return {
        kind: 'unsubscribed',
        subscriberId: message.subscriberId,
        message: ref,
        source: report.source,
      };
  }
}
