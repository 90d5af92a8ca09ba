// The practical limit: a bare nodemailer SMTP pool, with the same pool size Herald's workers
// use, sending COUNT messages that were rendered before the clock started to the same sink.
// The messages are byte for byte the shape of the campaign's (per-recipient subject, text
// and html; tracked link, pixel and unsubscribe link with tokens as long as Herald's signed
// ones; the same headers), so both sides ask nodemailer for the same work. Nothing else: no
// database, no queue, no rendering. Prints one JSON line.
import { randomBytes, randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';

const url = new URL(process.env.SMTP_URL!);
const count = Number(process.env.COUNT);
const poolSize = Number(url.searchParams.get('maxConnections') ?? 8);
const WINDOW = 400;
const DISTINCT = 50_000;

async function main(): Promise<void> {
  const transport = nodemailer.createTransport({
    pool: true,
    host: url.hostname,
    port: Number(url.port),
    secure: false,
    maxConnections: poolSize,
    maxMessages: Infinity,
  });
  const campaignId = randomUUID();
  // Herald's recipient tokens: 48 bytes of ids in base64url, a dot, a 22-character signature.
  const token = () =>
    `${randomBytes(48).toString('base64url')}.${randomBytes(16).toString('base64url').slice(0, 22)}`;
  // At most DISTINCT messages are kept rendered (a million would take gigabytes); past that
  // they are reused in turn, each send with its own recipient.
  const messages = Array.from({ length: Math.min(count, DISTINCT) }, (_, i) => {
    const unsubscribe = `https://herald.example/unsubscribe/${token()}`;
    const track = token();
    const click = `https://herald.example/t/click/${track}?u=https%3A%2F%2Facme.example%2Fnews&amp;s=${token().slice(0, 22)}`;
    return {
      from: 'Acme News <news@acme.example>',
      to: `subscriber${i}@example.com`,
      subject: `News for First${i}`,
      text: `Hello First${i},\n\nThis month at Acme: things.\n\nUnsubscribe: ${unsubscribe}`,
      html: `<html><body><p>Hello First${i},</p><p>This month at <a href="${click}">Acme</a>: things.</p><p><a href="${unsubscribe}">Unsubscribe</a></p><img src="https://herald.example/t/open/${track}" width="1" height="1" alt="" style="display:none"></body></html>`,
      headers: {
        'List-Unsubscribe': `<${unsubscribe}>, <mailto:unsubscribe@acme.example?subject=unsubscribe%20${unsubscribe.slice(35)}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'X-Herald-Campaign': campaignId,
      },
      messageId: `<${campaignId}.${randomUUID()}@acme.example>`,
    };
  });
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      const message = messages[index % messages.length];
      await transport.sendMail(
        index < messages.length ? message : { ...message, to: `subscriber${index}@example.com` },
      );
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, lane));
  const elapsedMs = Date.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  transport.close();
  console.log(JSON.stringify({ count, elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000 }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
