import { SMTPServer } from 'smtp-server';
import { listenOnLoopback } from '../../../test/support/scripted-relay';
import { waitFor } from '../../../test/support/wait-for';
import { loadConfig } from '../config/config';
import { DeliveryReceipt, MailTransport, OutgoingMessage } from './mail-transport';

const message = (id: string): OutgoingMessage => ({
  from: 'Acme <news@acme.test>',
  to: 'ada@example.com',
  subject: 'Hello',
  text: 'Hi',
  messageId: id,
});

/**
 * A relay that takes one message per connection and answers the next MAIL FROM with 421,
 * closing the connection, as a relay going down (or shedding load) does.
 */
async function oneMessagePerConnection() {
  const accepted: string[] = [];
  const mailFroms = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onMailFrom(_address, session, callback) {
      const seen = (mailFroms.get(session.id) ?? 0) + 1;
      mailFroms.set(session.id, seen);
      if (seen === 1) return callback();
      callback(Object.assign(new Error('closing, try again'), { responseCode: 421 }));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        accepted.push(/^Message-ID: (.*)$/m.exec(Buffer.concat(chunks).toString())?.[1] ?? '');
        callback(null);
      });
    },
  });
  return listenOnLoopback(server, accepted);
}

describe('MailTransport.sendWhen when a reused connection answers 421', () => {
  it('sends the message again over a new connection, whole, and asks mayFinish once', async () => {
    const relay = await oneMessagePerConnection();
    const transport = new MailTransport(
      loadConfig({ HERALD_SECRET: 'x'.repeat(40), SMTP_URL: `${relay.url}?maxConnections=1` }),
    );
    let asked = 0;
    const mayFinish = () => {
      asked++;
      return Promise.resolve(true);
    };
    try {
      await transport.sendWhen(message('first'), mayFinish);
      let receipt: DeliveryReceipt | undefined | Error;
      void transport.sendWhen(message('second'), mayFinish).then(
        (sent) => (receipt = sent),
        (error: Error) => (receipt = error),
      );
      // The pool puts the refused message back on a new connection: it must not hang there.
      await waitFor(() => receipt, {
        timeoutMs: 10_000,
        message: () => `no answer; the relay accepted ${JSON.stringify(relay.accepted)}`,
      });
      expect(receipt).toMatchObject({ messageId: '<second@acme.test>', response: /^250/ });
      expect(relay.accepted).toEqual(['<first@acme.test>', '<second@acme.test>']);
      expect(asked).toBe(2);
    } finally {
      transport.onModuleDestroy();
      await relay.close();
    }
  });
});
