import type { MessageEventResponse, MessageResponse, MessageSummary } from './message.dto';
import type { StoredEvent, StoredMessage } from './messages.repository';

export function presentMessageSummary(row: StoredMessage): MessageSummary {
  return {
    id: row.id,
    message_id: row.header_message_id,
    source: row.source,
    campaign_id: row.campaign_id,
    automation_id: row.automation_id,
    automation_run_id: row.automation_run_id,
    subscriber_id: row.subscriber_id,
    recipient: row.recipient,
    from: row.from_address,
    subject: row.subject,
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}

/** The message with its timeline: `queued` at its creation, then what was recorded. */
export function presentMessage(row: StoredMessage, events: StoredEvent[]): MessageResponse {
  return {
    ...presentMessageSummary(row),
    events: [{ type: 'queued', at: row.created_at.toISOString() }, ...events.map(presentEvent)],
  };
}

function presentEvent(event: StoredEvent): MessageEventResponse {
  const out: MessageEventResponse = { type: event.type, at: event.at.toISOString() };
  if (event.smtp_code !== null) out.smtp_code = event.smtp_code;
  if (event.reason !== null) out.reason = event.reason;
  if (event.url !== null) out.url = event.url;
  if (event.machine !== null) out.machine = event.machine;
  return out;
}
