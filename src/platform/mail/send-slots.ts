import { Lane, SlotLanes } from './slot-lanes';

/**
 * Asked once everything of a message but its end has gone to the relay: true sends the end
 * (the relay then takes the message), false abandons it (the connection is dropped mid-message,
 * and a relay discards a message whose data never ended).
 */
export type MayFinish = () => Promise<boolean>;

/** One message through the slots (see SendSlots.send). */
export interface SlottedSend<T> {
  /** Asked when a connection is free and again before the end: false sends nothing (more). */
  holds: () => boolean | Promise<boolean>;
  /** Hands the message to the transport (sendWhen) with the MayFinish to pass on. */
  send: (mayFinish: MayFinish) => Promise<T>;
  /** Commits what became of the message; its unrecorded slot is held until this resolves. */
  record: (result: T) => Promise<void>;
  /** `urgent` (a transactional message) goes before every `bulk` one waiting (a campaign's). */
  lane: Lane;
}

/**
 * The process's SMTP connections, shared by every sender (campaign deliveries and
 * transactional sends alike), as two kinds of slot.
 *
 * A message is handed to the transport only when a connection is free for it, so the moment
 * a sender decides to send (and checks its lease) is the moment its SMTP transaction starts,
 * never a queue of them.
 *
 * Its end, the moment the relay takes it, waits for one of as many "unrecorded" slots, held
 * until its outcome is committed. A worker that freezes or dies can therefore leave at most
 * this many messages whose fate is unknown, while its connections already carry the next
 * messages' envelopes and data during those commits.
 *
 * Both kinds serve transactional messages before campaign messages (SlotLanes), so a
 * campaign's backlog never delays one person's message by more than one message's time.
 *
 * One per process (MailModule provides it), with as many slots of each kind as the transport
 * has connections.
 */
export class SendSlots {
  private readonly connections: SlotLanes;
  private readonly unrecordedSlots: SlotLanes;

  constructor(connections: number) {
    this.connections = new SlotLanes(connections);
    this.unrecordedSlots = new SlotLanes(connections);
  }

  /**
   * Sends one message: `send` runs once a connection is free and `holds` agrees; the message
   * ends only once an unrecorded slot is free and `holds` still agrees, and that slot is held
   * until `record` has committed the outcome. Undefined when nothing was sent.
   */
  async send<T>({ holds, send, record, lane }: SlottedSend<T>): Promise<T | undefined> {
    let recorded: (() => void) | undefined;
    let over = false;
    const mayFinish = async () => {
      const release = await this.unrecordedSlots.take(lane);
      // Granted after the send was over (the relay dropped the connection while the end
      // waited): nobody is left to give it back but this.
      if (over) {
        release();
        return false;
      }
      recorded = release;
      return holds();
    };
    try {
      const connection = await this.connections.take(lane);
      let sent: { result: T } | undefined;
      try {
        sent = (await holds()) ? { result: await send(mayFinish) } : undefined;
      } finally {
        connection();
      }
      if (sent === undefined) return undefined;
      await record(sent.result);
      return sent.result;
    } finally {
      over = true;
      recorded?.();
    }
  }
}
