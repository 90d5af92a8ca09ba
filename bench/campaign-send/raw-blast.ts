// The practical limit: a bare nodemailer SMTP pool, with the same pool size Herald's workers
// use, sending COUNT messages that were rendered before the clock started (same shape as the
// campaign's: per-recipient subject, text and html, List-Unsubscribe headers) to the same
// sink. Nothing else: no database, no queue, no tracking. Prints one JSON line.
import nodemailer from 'nodemailer';

const url = new URL(process.env.SMTP_URL!);
const count = Number(process.env.COUNT);
const poolSize = Number(url.searchParams.get('maxConnections') ?? 8);
const WINDOW = 400;

async function main(): Promise<void> {
  const transport = nodemailer.createTransport({
    pool: true,
    host: url.hostname,
    port: Number(url.port),
    secure: false,
    maxConnections: poolSize,
    maxMessages: Infinity,
  });
  const messages = Array.from({ length: count }, (_, i) => ({
    from: 'Acme News <news@acme.example>',
    to: `subscriber${i}@example.com`,
    subject: `News for First${i}`,
    text: `Hello First${i},\n\nThis month at Acme: things.\n\nUnsubscribe: https://herald.example/unsubscribe/${i}`,
    html: `<html><body><p>Hello First${i},</p><p>This month at <a href="https://herald.example/t/click/${i}?u=https%3A%2F%2Facme.example%2Fnews">Acme</a>: things.</p><p><a href="https://herald.example/unsubscribe/${i}">Unsubscribe</a></p><img src="https://herald.example/t/open/${i}" width="1" height="1" alt=""></body></html>`,
    headers: {
      'List-Unsubscribe': `<https://herald.example/unsubscribe/${i}>, <mailto:unsubscribe@acme.example?subject=unsubscribe%20${i}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    messageId: `<bench.${i}@acme.example>`,
  }));
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const message = messages[next++];
      await transport.sendMail(message);
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
