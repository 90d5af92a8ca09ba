import { SMTPServer } from 'smtp-server';
import { listenOnLoopback } from '../../../test/support/scripted-relay';
import { waitFor } from '../../../test/support/wait-for';
import { loadConfig } from '../config/config';
import { MailTransport, OutgoingMessage } from './mail-transport';
import { SendSlots } from './send-slots';

const message = (to: string): OutgoingMessage => ({
  from: 'Acme <news@acme.test>',
  to,
  subject: 'Hello',
  text: 'Hi',
  messageId: `id-${to}`,
});

/** A relay that drops the connection of any message to `drop@…` once its data arrives. */
async function droppingRelay() {
  const accepted: string[] = [];
  const server: SMTPServer = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo[0]?.address ?? '';
      if (to.startsWith('drop@')) {
        stream.once('data', () => {
          const connections = (server as unknown as { connections: Set<unknown> }).connections;
          for (const connection of connections as Set<{
            id: string;
            _socket: { destroy(): void };
          }>) {
            if (connection.id === session.id) connection._socket.destroy();
          }
        });
      }
      stream.resume();
      stream.on('end', () => {
        accepted.push(to);
        callback(null);
      });
    },
  });
  return listenOnLoopback(server, accepted);
}

describe('SendSlots', () => {
  it('keeps every unrecorded slot when the relay drops a message whose end waits for one', async () => {
    const relay = await droppingRelay();
    const transport = new MailTransport(
      loadConfig({ HERALD_SECRET: 'x'.repeat(40), SMTP_URL: `${relay.url}?maxConnections=2` }),
    );
    const slots = new SendSlots(transport.connections);
    // Settles with the error rather than rejecting: a test that fails leaves none unhandled.
    const send = (to: string, record: () => Promise<void> = () => Promise.resolve()) =>
      slots
        .send({
          lane: 'bulk',
          holds: () => true,
          send: (mayFinish) => transport.sendWhen(message(to), mayFinish),
          record,
        })
        .catch((error: unknown) => error);
    try {
      // Both unrecorded slots held by outcomes not committed yet.
      const commits: (() => void)[] = [];
      const held = ['a@x.test', 'b@x.test'].map((to) =>
        send(to, () => new Promise<void>((committed) => commits.push(committed))),
      );
      await waitFor(() => commits.length === 2);
      // This message's end waits for a slot when the relay drops its connection.
      const dropped = await send('drop@x.test');
      expect(dropped).toMatchObject({ permanent: false });
      for (const commit of commits) commit();
      await Promise.all(held);
      // Every slot is free again: two messages can be unrecorded at once.
      const next = ['c@x.test', 'd@x.test'].map((to) =>
        send(to, () => new Promise<void>((committed) => commits.push(committed))),
      );
      await waitFor(() => commits.length === 4, {
        timeoutMs: 10_000,
        message: () => `only ${commits.length - 2} of 2 messages could end`,
      });
      for (const commit of commits.slice(2)) commit();
      await Promise.all(next);
      expect(relay.accepted.sort()).toEqual(['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test']);
    } finally {
      transport.onModuleDestroy();
      await relay.close();
    }
  });
});
