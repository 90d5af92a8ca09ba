import { AddressInfo } from 'node:net';
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
  private releases: (() => void)[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  private readonly server: SMTPServer;
  private port = 0;

  private constructor(keepBodies: boolean) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      size: 10 * 1024 * 1024,
      onMailFrom: (_address, _session, callback) => {
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
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const message = parseMessage(Buffer.concat(chunks).toString('utf8'), session);
          if (!keepBodies) message.raw = '';
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

  /** Lets held transactions continue (their clients may be long gone). */
  release(): void {
    this.holdAfter = Infinity;
    const releases = this.releases;
    this.releases = [];
    for (const release of releases) release();
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(message: ReceivedMessage): void {
    this.messages.push(message);
    this.waiters = this.waiters.filter((waiter) => {
      if (this.messages.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }
}

function parseMessage(raw: string, session: SMTPServerSession): ReceivedMessage {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  const body = (split < 0 ? '' : raw.slice(split + 4))
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return {
    to: session.envelope.rcptTo.map((address) => address.address.toLowerCase()),
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    raw,
    headers,
    body,
    receivedAt: Date.now(),
  };
}
