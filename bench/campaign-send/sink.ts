// The benchmark's SMTP sink, in its own process: accepts every message, keeps nothing but a
// count and the times of the first and last message since the last reset. The parent talks
// to it over IPC: 'reset' → {type:'ready'}, 'stats' → {count, firstAt, lastAt}.
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let count = 0;
let firstAt = 0;
let lastAt = 0;

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  maxClients: 1000,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      const now = Date.now();
      if (count === 0) firstAt = now;
      lastAt = now;
      count++;
      callback(null);
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.server.address() as AddressInfo;
  process.send!({ type: 'listening', port });
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') {
    count = 0;
    firstAt = 0;
    lastAt = 0;
    process.send!({ type: 'ready' });
  } else if (message.type === 'stats') {
    process.send!({ type: 'stats', count, firstAt, lastAt });
  }
});
process.on('disconnect', () => server.close(() => process.exit(0)));
