import { AddressInfo, Socket } from 'node:net';
import { SMTPServer, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';

export interface ReceivedMessage {
  /** RCPT TO addresses, lower-cased. */
  to: string[];
  from: string;
  raw: string;
  /** Header name (lower-cased) → unfolded value; the first occurrence wins. */
  headers: Record<string, string>;
  /** The raw body with quoted-printable soft breaks and escapes undone: good for `contains`. */
  body: string;
  /** When the sink accepted it (Date.now()): for tests of pace. */
  receivedAt: number;
  /** The message's size in bytes, as it arrived. */
  size: number;
}

/**
 * What the sink answers at the end of DATA for a message: undefined = 250, or a reply code
 * and text to refuse it with (e.g. 451 to test retries, 550 to test permanent failures).
 */
export type SinkVerdict = { code: number; message: string } | undefined;

/**
 * A real SMTP server on loopback that keeps what it receives, for end-to-end tests. No TLS,
 * no auth: what matters is the bytes Herald puts on the wire.
 */
export class SmtpSink {
  readonly messages: ReceivedMessage[] = [];
  /** Decides each message's reply; the default accepts everything. */
  verdict: (message: ReceivedMessage) => SinkVerdict = () => undefined;
  /**
   * Once this many messages were accepted, new transactions hang at MAIL FROM (never
   * answered) until `holdAfter` is raised: a way to freeze a sender mid-campaign at a point
   * where nothing is half-transmitted, e.g. to kill it there.
   */
  holdAfter = Infinity;
  /** Transactions currently hanging at MAIL FROM. */
  held = 0;
  /**
   * Transactions whose data is arriving and not yet ended: a sender holding messages' ends
   * back shows here (each connection waiting at an end counts one).
   */
  inData = 0;
  /** Connections accepted, and MAIL FROM commands received, since the sink started. */
  connectionsOpened = 0;
  mailFroms = 0;
  /**
   * Until this time (Date.now()), every RCPT TO and every end of DATA is answered 451: a relay
   * refusing everything for now (greylisting, overload, a full disk). See deferFor().
   */
  deferUntil = 0;
  /** Replies 451 given because of deferUntil. */
  deferred = 0;
  /** Accepted messages per RCPT TO address (lower-cased): see duplicates() and missing(). */
  readonly received = new Map<string, number>();
  private releases: (() => void)[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private triggers: { count: number; action: () => void }[] = [];

  private readonly server: SMTPServer;
  private port = 0;

  private constructor(keepBodies: boolean) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      size: 10 * 1024 * 1024,
      onRcptTo: (_address, _session, callback) => {
        callback(this.deferring() ? this.deferral() : undefined);
      },
      onConnect: (_session, callback) => {
        this.connectionsOpened++;
        callback();
      },
      onMailFrom: (_address, _session, callback) => {
        this.mailFroms++;
        if (this.messages.length < this.holdAfter) {
          callback();
          return;
        }
        this.held++;
        this.releases.push(() => {
          this.held--;
          callback();
        });
      },
      onData: (stream: SMTPServerDataStream, session: SMTPServerSession, callback) => {
        const chunks: Buffer[] = [];
        this.inData++;
        let ended = false;
        const over = () => {
          if (!ended) this.inData--;
          ended = true;
        };
        stream.once('close', over);
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          over();
          const message = parseMessage(Buffer.concat(chunks).toString('utf8'), session, keepBodies);
          if (this.deferring()) {
            callback(this.deferral());
            return;
          }
          const verdict = this.verdict(message);
          if (verdict) {
            const error = new Error(verdict.message) as Error & { responseCode: number };
            error.responseCode = verdict.code;
            callback(error);
            return;
          }
          this.accept(message);
          callback(null);
        });
      },
    });
  }

  static async start(options: { keepBodies?: boolean } = {}): Promise<SmtpSink> {
    const sink = new SmtpSink(options.keepBodies ?? true);
    // A client that dies mid-transaction (a killed worker) resets its connection: the server
    // reports it as an 'error' event, which is the client's problem, not the sink's.
    sink.server.on('error', () => undefined);
    await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
    sink.port = (sink.server.server.address() as AddressInfo).port;
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Resolves once at least `count` messages were accepted (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs = 30_000): Promise<void> {
    if (this.messages.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`sink got ${this.messages.length} of ${count} messages`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /**
   * Runs `action` synchronously when the `count`-th message is accepted (at once if it already
   * was): a fault injected at an exact point of a send, with other messages still in flight.
   */
  whenReceived(count: number, action: () => void): void {
    if (this.messages.length >= count) action();
    else this.triggers.push({ count, action });
  }

  /** Answers 451 to every recipient and every message for the next `ms`. */
  deferFor(ms: number): void {
    this.deferUntil = Date.now() + ms;
  }

  /** How many times `address` was accepted. */
  countOf(address: string): number {
    return this.received.get(address.toLowerCase()) ?? 0;
  }

  /** Addresses accepted more than once, with their counts. */
  duplicates(): [string, number][] {
    return [...this.received].filter(([, count]) => count > 1);
  }

  /** How many messages beyond the first each address got, summed. */
  extraCopies(): number {
    let extra = 0;
    for (const count of this.received.values()) extra += count - 1;
    return extra;
  }

  /** The addresses of `expected` that were never accepted. */
  missing(expected: Iterable<string>): string[] {
    return [...expected].filter((address) => this.countOf(address) === 0);
  }

  /** Lets held transactions continue (their clients may be long gone). */
  release(): void {
    this.holdAfter = Infinity;
    const releases = this.releases;
    this.releases = [];
    for (const release of releases) release();
  }

  /**
   * The relay going down and coming back on the same port, `downMs` later: every connection
   * dropped at once (messages whose data had not ended are lost to it; one that had ended is
   * counted though its sender may never hear the 250), new connections refused meanwhile.
   */
  async restart(downMs: number): Promise<void> {
    const listener = this.server.server;
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    const connections = (this.server as unknown as { connections: Set<{ _socket: Socket }> })
      .connections;
    for (const connection of connections) connection._socket.destroy();
    this.releases = [];
    await closed;
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await new Promise<void>((resolve) => listener.listen(this.port, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private deferring(): boolean {
    return Date.now() < this.deferUntil;
  }

  private deferral(): Error {
    this.deferred++;
    const error = new Error('Try again later (the test relay defers everything for now)');
    (error as Error & { responseCode: number }).responseCode = 451;
    return error;
  }

  private accept(message: ReceivedMessage): void {
    this.messages.push(message);
    for (const address of message.to) {
      this.received.set(address, (this.received.get(address) ?? 0) + 1);
    }
    this.triggers = this.triggers.filter((trigger) => {
      if (this.messages.length < trigger.count) return true;
      trigger.action();
      return false;
    });
    this.waiters = this.waiters.filter((waiter) => {
      if (this.messages.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }
}

/** The message as tests read it; without `keepBodies`, its headers only (cheap at volume). */
function parseMessage(raw: string, session: SMTPServerSession, keepBodies = true): ReceivedMessage {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  const body = !keepBodies
    ? ''
    : (split < 0 ? '' : raw.slice(split + 4))
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return {
    to: session.envelope.rcptTo.map((address) => address.address.toLowerCase()),
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    raw: keepBodies ? raw : '',
    headers,
    body,
    receivedAt: Date.now(),
    size: Buffer.byteLength(raw),
  };
}
