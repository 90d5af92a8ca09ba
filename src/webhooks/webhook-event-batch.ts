/**
 * One event of a webhook_event_batches row, as stored in its `events` JSON: everything its
 * first attempts and their delivery rows need, frozen when the event was recorded.
 */
export interface BatchedEvent {
  /** The webhook-id: the same on every attempt and for every endpoint. */
  event_id: string;
  type: string;
  /**
   * The Standard Webhooks payload `{type, timestamp, data}`, signed and sent byte for byte
   * (once completed by `withAddress`, for an event with `email_of`).
   */
  payload: string;
  /** Who it is about, so that an erasure finds it (as it finds delivery rows). */
  subscriber_id: string | null;
  recipient_hash: string | null;
  /** The subscriber whose address fills the payload's `data.email` before the first attempt. */
  email_of?: string | null;
  /** [delivery id, endpoint id] for each endpoint that wanted the event when it happened. */
  deliveries: [string, string][];
}

/**
 * The payload with the recipient's address in `data.email` (which keeps its place in the
 * object: the bytes differ from the stored payload only there).
 */
export function withAddress(payload: string, email: string): string {
  const body = JSON.parse(payload) as { data: Record<string, unknown> };
  return JSON.stringify({ ...body, data: { ...body.data, email } });
}

export function parseBatch(events: string): BatchedEvent[] {
  return JSON.parse(events) as BatchedEvent[];
}

/** Whether an event concerns the person an erasure names. */
export function concerns(
  event: BatchedEvent,
  subscriberId: string | null,
  recipientHash: string,
): boolean {
  return (
    (subscriberId !== null && event.subscriber_id === subscriberId) ||
    event.recipient_hash === recipientHash
  );
}
