import { connect, Socket } from 'node:net';
import { InboundSmtpServer } from '../../src/inbound/inbound-smtp.server';
import { InboundStats } from '../../src/inbound/inbound-stats';
import { deliver } from '../support/feedback-mail';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const BOUNCE_DOMAIN = 'bounces.limits.test';
const MAX_BYTES = 64 * 1024;

/**
 * A plain SMTP client on a socket, one command at a time: what a sender that ignores SIZE,
 * or holds connections open, looks like to the inbound port.
 */
class RawSmtp {
  private buffer = '';
  private waiting: ((reply: string) => void) | undefined;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      this.buffer += data;
      this.deliverReply();
    });
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
  }

  /** Connected, with the server's greeting read. */
  static async open(port: number): Promise<{ client: RawSmtp; greeting: string }> {
    const socket = connect(port, '127.0.0.1');
    const client = new RawSmtp(socket);
    const greeting = await client.reply();
    return { client, greeting };
  }

  /** The next complete reply (its last line is `NNN text`). */
  reply(): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliverReply();
    });
  }

  async command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  close(): void {
    this.socket.destroy();
  }

  private deliverReply(): void {
    const match = /(?:^|\r\n)\d{3} [^\r\n]*\r\n/.exec(this.buffer);
    if (!match || !this.waiting) return;
    const end = match.index + match[0].length;
    const reply = this.buffer.slice(0, end);
    this.buffer = this.buffer.slice(end);
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve(reply.trim());
  }
}

/**
 * What the inbound SMTP port holds against one sender: the size of a message (checked while it
 * streams), connections at once per address, and messages per connection.
 */
describe('inbound SMTP limits', () => {
  let env: TestEnv;
  let api: TestApi;
  let port: number;
  const open: RawSmtp[] = [];

  beforeAll(async () => {
    env = await TestEnv.create({
      PUBLIC_URL: 'https://herald.limits.test',
      BOUNCE_DOMAIN,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_HOST: '127.0.0.1',
      INBOUND_MAX_BYTES: String(MAX_BYTES),
    });
    api = await TestApi.start(env);
    port = api.app.get(InboundSmtpServer).port!;
  });
  afterEach(async () => {
    for (const client of open.splice(0)) {
      client.close();
      await client.closed;
    }
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const stats = () => api.app.get(InboundStats).snapshot();
  const feedbackRows = async () =>
    (await env.sql<{ n: number }>('SELECT count(*)::int AS n FROM delivery_feedback'))[0].n;

  it('refuses a message over INBOUND_MAX_BYTES with 552 and processes none of it', async () => {
    const before = stats();
    const body = `Subject: big\r\n\r\n${'a'.repeat(76)}\r\n`.repeat(Math.ceil(MAX_BYTES / 78) + 10);
    await expect(
      deliver(port, { from: '', to: [`fbl@${BOUNCE_DOMAIN}`] }, body),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect(stats().too_large).toBe((before.too_large ?? 0) + 1);
    // Nothing reached the report reader: it would have counted the mail as ignored.
    expect(stats().ignored).toBe(before.ignored);
    expect(await feedbackRows()).toBe(0);
    // A message under the limit still goes through.
    await deliver(port, { from: '', to: [`fbl@${BOUNCE_DOMAIN}`] }, 'Subject: small\r\n\r\nhi');
  });

  it('holds no more of an oversized message in memory than the limit, while it streams', async () => {
    // A sender that ignores SIZE and streams 160 MiB: the server drains it, 552 at the end.
    const { client } = await RawSmtp.open(port);
    open.push(client);
    await client.command('EHLO sender.test');
    expect(await client.command('MAIL FROM:<>')).toMatch(/^250/);
    expect(await client.command(`RCPT TO:<fbl@${BOUNCE_DOMAIN}>`)).toMatch(/^250/);
    expect(await client.command('DATA')).toMatch(/^354/);
    const line = Buffer.from(`${'b'.repeat(1022)}\r\n`);
    const chunk = Buffer.concat(Array.from({ length: 1024 }, () => line)); // 1 MiB
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline);
    }, 5);
    try {
      for (let sent = 0; sent < 160; sent++) {
        if (!client.socket.write(chunk)) {
          await new Promise((resolve) => client.socket.once('drain', resolve));
        }
      }
      client.socket.write('.\r\n');
      expect(await client.reply()).toMatch(/^552/);
    } finally {
      clearInterval(sampler);
    }
    // Chunks read and dropped are garbage until V8 collects them (it does once external
    // memory grows by some 64 MiB); a kept copy of the message would be 160 MiB.
    expect(peak).toBeLessThan(100 * 1024 * 1024);
  });

  it('holds at most 5 connections at once per client address', async () => {
    for (let index = 0; index < 5; index++) {
      const { client, greeting } = await RawSmtp.open(port);
      open.push(client);
      expect(greeting).toMatch(/^220/);
    }
    const { client: sixth, greeting } = await RawSmtp.open(port);
    expect(greeting).toMatch(/^421/);
    await sixth.closed;
    // One closes: a new connection is welcome again.
    const first = open.shift()!;
    first.close();
    await first.closed;
    const again = await waitFor(async () => {
      const attempt = await RawSmtp.open(port);
      if (/^220/.test(attempt.greeting)) return attempt.client;
      attempt.client.close();
      return false;
    });
    open.push(again);
  });

  it('closes a connection after 100 messages', async () => {
    const { client } = await RawSmtp.open(port);
    open.push(client);
    await client.command('EHLO sender.test');
    for (let index = 0; index < 100; index++) {
      expect(await client.command('MAIL FROM:<>')).toMatch(/^250/);
      expect(await client.command('RSET')).toMatch(/^250/);
    }
    expect(await client.command('MAIL FROM:<>')).toMatch(/^421/);
    await client.closed;
  });
});
