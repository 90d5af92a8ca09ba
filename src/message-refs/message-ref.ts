/**
 * Which message Herald sent: a campaign's message to one subscriber, or one transactional
 * message. Senders put it in return paths and Message-IDs; feedback readers get it back from them.
 */
export type MessageRef =
  | { kind: 'campaign'; campaignId: string; subscriberId: string }
  | { kind: 'transactional'; messageId: string };

/** The key one message's reports share: `c:<campaign>:<subscriber>` or `t:<message>`. */
export function messageKey(ref: MessageRef): string {
  return ref.kind === 'campaign' ? `c:${ref.campaignId}:${ref.subscriberId}` : `t:${ref.messageId}`;
}
