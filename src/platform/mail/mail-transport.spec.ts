import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { waitFor } from '../../../test/support/wait-for';
import { HeraldConfig, loadConfig } from '../config/config';
import {
  MailDeliveryError,
  MailTransport,
  OutgoingMessage,
  withoutAddresses,
} from './mail-transport';

const message = (overrides: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  from: 'Acme <news@acme.test>',
  to: 'ada@example.com',
  subject: 'Hello',
  text: 'Hi Ada',
  html: '<p>Hi Ada</p>',
  headers: { 'List-Unsubscribe': '<https://herald.test/unsubscribe/t>' },
  messageId: 'm-1',
  ...overrides,
});

function config(env: Record<string, string>): HeraldConfig {
  return loadConfig({ HERALD_SECRET: 'x'.repeat(40), ...env });
}

describe('MailTransport over SMTP', () => {
  let sink: SmtpSink;
  let transport: MailTransport;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    transport = new MailTransport(config({ SMTP_URL: `${sink.url}?maxConnections=2` }));
  });
  afterAll(async () => {
    transport.onModuleDestroy();
    await sink.close();
  });

  it('delivers with the Message-ID and extra headers and returns the 250 reply', async () => {
    const receipt = await transport.send(message());
    expect(receipt.messageId).toBe('<m-1@acme.test>');
    expect(receipt.response).toMatch(/^250/);
    const received = sink.messages.at(-1)!;
    expect(received.to).toEqual(['ada@example.com']);
    expect(received.headers['message-id']).toBe('<m-1@acme.test>');
    expect(received.headers['list-unsubscribe']).toBe('<https://herald.test/unsubscribe/t>');
    expect(received.body).toContain('Hi Ada');
  });

  it('reports 4xx as temporary and 5xx as permanent', async () => {
    sink.verdict = (m) =>
      m.headers.subject === 'soft'
        ? { code: 451, message: 'try later' }
        : { code: 550, message: 'no such user' };
    try {
      const soft = await transport.send(message({ subject: 'soft' })).catch((e: unknown) => e);
      expect(soft).toBeInstanceOf(MailDeliveryError);
      expect(soft).toMatchObject({ permanent: false, responseCode: 451 });
      const hard = await transport.send(message({ subject: 'hard' })).catch((e: unknown) => e);
      expect(hard).toMatchObject({ permanent: true, responseCode: 550 });
    } finally {
      sink.verdict = () => undefined;
    }
  });

  it("keeps no address of the relay's reply in the error, its stack trace included", async () => {
    sink.verdict = () => ({
      code: 550,
      message: '5.1.1 <ada@example.com>: no such user ada@example.com',
    });
    try {
      const error = (await transport.send(message()).catch((e: unknown) => e)) as Error;
      expect(error).toMatchObject({ permanent: true, responseCode: 550 });
      expect(error.message).toContain('no such user');
      expect(error.message).toContain('[address]');
      expect(`${error.message}\n${error.stack}`).not.toContain('ada@example.com');
    } finally {
      sink.verdict = () => undefined;
    }
  });

  describe('sendWhen', () => {
    /** A mayFinish whose answer the test gives, and which tells whether it was asked. */
    function heldEnd() {
      const gate = { asked: false, answer: (_finish: boolean) => undefined as void };
      const mayFinish = () =>
        new Promise<boolean>((answer) => {
          gate.asked = true;
          gate.answer = answer;
        });
      return { gate, mayFinish };
    }

    it('keeps a message from the relay until mayFinish agrees, then delivers it as send would', async () => {
      const before = sink.messages.length;
      const { gate, mayFinish } = heldEnd();
      const sending = transport.sendWhen(message({ messageId: 'held-1' }), mayFinish);
      await waitFor(() => gate.asked);
      // Asked with everything but the end sent: the relay has not taken the message.
      expect(sink.messages).toHaveLength(before);
      gate.answer(true);
      const receipt = await sending;
      expect(receipt).toMatchObject({ messageId: '<held-1@acme.test>', response: /^250/ });
      const received = sink.messages.at(-1)!;
      expect(received.headers['message-id']).toBe('<held-1@acme.test>');
      expect(received.headers['list-unsubscribe']).toBe('<https://herald.test/unsubscribe/t>');
      expect(received.body).toContain('Hi Ada');
    });

    it('abandons a message whose end is refused: the relay never takes it', async () => {
      const before = sink.messages.length;
      const { gate, mayFinish } = heldEnd();
      const sending = transport.sendWhen(message({ messageId: 'held-2' }), mayFinish);
      await waitFor(() => gate.asked);
      gate.answer(false);
      expect(await sending).toBeUndefined();
      // The connection it was on is replaced; the next message goes out.
      await transport.send(message({ messageId: 'after-abandon' }));
      expect(sink.messages.slice(before).map((m) => m.headers['message-id'])).toEqual([
        '<after-abandon@acme.test>',
      ]);
    });

    it('never asks about a message the relay refused at its envelope', async () => {
      const { gate, mayFinish } = heldEnd();
      sink.deferFor(60_000);
      try {
        const error = await transport.sendWhen(message(), mayFinish).catch((e: unknown) => e);
        expect(error).toMatchObject({ permanent: false, responseCode: 451 });
        expect(gate.asked).toBe(false);
      } finally {
        sink.deferUntil = 0;
      }
    });
  });

  it("opens the pool's connections ahead of any message, and the next message uses one", async () => {
    const fresh = await SmtpSink.start();
    const pool = new MailTransport(config({ SMTP_URL: `${fresh.url}?maxConnections=2` }));
    try {
      pool.openConnections();
      await waitFor(() => fresh.connectionsOpened === 2);
      await pool.send(message());
      // No transaction was started by the openings, and the message needed no new connection.
      expect(fresh.mailFroms).toBe(1);
      expect(fresh.messages).toHaveLength(1);
      expect(fresh.connectionsOpened).toBe(2);
    } finally {
      pool.onModuleDestroy();
      await fresh.close();
    }
  });

  it('reports a refused connection as temporary', async () => {
    const closed = new MailTransport(config({ SMTP_URL: 'smtp://127.0.0.1:1' }));
    try {
      const error = await closed.send(message()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect(error).toMatchObject({ permanent: false });
    } finally {
      closed.onModuleDestroy();
    }
  });
});

describe('MailTransport without SMTP_URL', () => {
  it('writes an .eml file per message in the storage key folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-outbox-'));
    const transport = new MailTransport(config({ OUTBOX_DIR: dir }));
    try {
      await transport.send(message({ storageKey: 'sub-1', messageId: 'abc' }));
      await transport.send(message({ messageId: '../escape' }));
      const eml = await readFile(join(dir, 'sub-1', 'abc.eml'), 'utf8');
      expect(eml).toMatch(/^Message-ID: <abc@acme\.test>/m);
      expect(eml).toMatch(/^List-Unsubscribe: <https:\/\/herald\.test\/unsubscribe\/t>/m);
      expect(eml).toContain('Hi Ada');
      await expect(readFile(join(dir, 'misc', '.._escape.eml'), 'utf8')).rejects.toThrow();
      await expect(readFile(join(dir, 'misc', '__escape.eml'), 'utf8')).resolves.toContain('Hi');
    } finally {
      transport.onModuleDestroy();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('MailTransport with DKIM', () => {
  it('signs every message with the configured domain and selector', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const sink = await SmtpSink.start();
    const transport = new MailTransport(
      config({
        SMTP_URL: sink.url,
        DKIM_DOMAIN: 'acme.test',
        DKIM_SELECTOR: 'mail2026',
        DKIM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      }),
    );
    try {
      await transport.send(message());
      // sendWhen signs the finished bytes itself, the same way.
      await transport.sendWhen(message({ messageId: 'm-2' }), () => Promise.resolve(true));
      expect(sink.messages).toHaveLength(2);
      for (const sent of sink.messages) {
        const signature = sent.headers['dkim-signature'];
        expect(signature).toMatch(/\bd=acme\.test;/);
        expect(signature).toMatch(/\bs=mail2026;/);
        expect(signature).toMatch(/\bb=[A-Za-z0-9+/=\s]{100,}/);
      }
    } finally {
      transport.onModuleDestroy();
      await sink.close();
    }
  });

  it("signs with the message's own key instead of the operator's, from its envelope sender", async () => {
    const pem = (key: ReturnType<typeof generateKeyPairSync>['privateKey']) =>
      key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const operator = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const domain = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const sink = await SmtpSink.start();
    const transport = new MailTransport(
      config({ SMTP_URL: sink.url, DKIM_DOMAIN: 'herald.test', DKIM_PRIVATE_KEY: pem(operator) }),
    );
    try {
      await transport.send(
        message({
          from: 'Shop <news@shop.test>',
          dkim: { domainName: 'shop.test', keySelector: 'herald-abc', privateKey: pem(domain) },
          envelopeFrom: 'bounces@herald-bounces.shop.test',
        }),
      );
      await transport.send(message({ messageId: 'm-2' }));
      const [own, fallback] = sink.messages;
      expect(own.from).toBe('bounces@herald-bounces.shop.test');
      expect(own.raw.match(/^DKIM-Signature:/gm)).toHaveLength(1);
      expect(own.headers['dkim-signature']).toMatch(/\bd=shop\.test;.*\bs=herald-abc;/s);
      // A message without its own key: the operator's key, the From address as sender.
      expect(fallback.from).toBe('news@acme.test');
      expect(fallback.headers['dkim-signature']).toMatch(/\bd=herald\.test;/);
    } finally {
      transport.onModuleDestroy();
      await sink.close();
    }
  });

  it('refuses a DKIM key without a domain, and a key that is not PEM', () => {
    expect(() => config({ DKIM_PRIVATE_KEY: 'x' })).toThrow(/DKIM_DOMAIN/);
    expect(() => config({ DKIM_DOMAIN: 'acme.test', DKIM_PRIVATE_KEY: 'x' })).toThrow(
      /DKIM_PRIVATE_KEY must hold a PEM private key/,
    );
  });
});

describe('withoutAddresses', () => {
  it('replaces every word holding an @, keeps the rest, and bounds what it scans', () => {
    expect(withoutAddresses('550 5.1.1 <a@b.example>: user a@b.example unknown')).toBe(
      '550 5.1.1 [address] user [address] unknown',
    );
    expect(withoutAddresses('451 try later')).toBe('451 try later');
    expect(withoutAddresses('x'.repeat(5000))).toHaveLength(1000);
  });
});
