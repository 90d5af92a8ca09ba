// The benchmark's SMTP sink, in its own process: accepts every message and keeps, since the
// last reset, only what the bench reports. Campaign mail (any recipient but `tx-…`): a count,
// the times of the first and last message, how many times each recipient was reached
// (duplicates and losses), the bytes and how many began with a DKIM-Signature header, and the
// first message whole (its signature is verified by the parent). Transactional mail (recipients
// `tx-<n>@…`): the arrival time of each, for request-to-arrival latencies.
//
// The parent talks to it over IPC: 'reset' → {type:'ready'}, 'stats' → SinkStats,
// 'sample' → {type:'sample', message} (the first campaign message, base64), 'arrivals' →
// {type:'arrivals', arrivals: [[address, time], …]} of transactional mail.
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const TRANSACTIONAL = /^tx-/;

let count = 0;
let firstAt = 0;
let lastAt = 0;
let bytes = 0;
let signed = 0;
let sample: Buffer | undefined;
let reached = new Map<string, number>();
let arrivals = new Map<string, number>();

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  maxClients: 1000,
  onData(stream, session, callback) {
    const recipient = session.envelope.rcptTo[0]?.address ?? '';
    const transactional = TRANSACTIONAL.test(recipient);
    const keep = !transactional && sample === undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let first: Buffer | undefined;
    stream.on('data', (chunk: Buffer) => {
      first ??= chunk;
      size += chunk.length;
      if (keep) chunks.push(chunk);
    });
    stream.on('end', () => {
      const now = Date.now();
      if (transactional) {
        arrivals.set(recipient, now);
        callback(null);
        return;
      }
      if (count === 0) firstAt = now;
      lastAt = now;
      count++;
      bytes += size;
      if (first?.subarray(0, 15).toString('latin1').toLowerCase() === 'dkim-signature:') signed++;
      reached.set(recipient, (reached.get(recipient) ?? 0) + 1);
      if (keep && sample === undefined) sample = Buffer.concat(chunks);
      callback(null);
    });
  },
});

// A sender that goes away mid-connection (a worker stopped after its send, a stalled step's
// workers killed) resets its socket: that is the sender's business, not a reason for the sink
// to crash while the bench cleans up.
server.on('error', () => undefined);

server.listen(0, '127.0.0.1', () => {
  const { port } = server.server.address() as AddressInfo;
  process.send!({ type: 'listening', port });
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') {
    count = 0;
    firstAt = 0;
    lastAt = 0;
    bytes = 0;
    signed = 0;
    sample = undefined;
    reached = new Map();
    arrivals = new Map();
    process.send!({ type: 'ready' });
  } else if (message.type === 'stats') {
    process.send!({
      type: 'stats',
      count,
      firstAt,
      lastAt,
      bytes,
      signed,
      distinct: reached.size,
      transactional: arrivals.size,
    });
  } else if (message.type === 'sample') {
    process.send!({ type: 'sample', message: sample?.toString('base64') });
  } else if (message.type === 'arrivals') {
    process.send!({ type: 'arrivals', arrivals: [...arrivals] });
  }
});
process.on('disconnect', () => server.close(() => process.exit(0)));
