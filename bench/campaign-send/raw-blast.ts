// The baseline of `npm run bench:campaign-send`: the practical limit of putting a campaign's
// messages on the wire, doing per message the work every message needs whoever sends it.
// Before the clock starts, this process builds its share of the campaign's messages with
// Herald's own code, from the bench database's rows, as a worker would: the campaign compiled
// with its opt-out footer (compileMessage(withOptOut(…))), each message built by
// CampaignMessageBuilder (merge fields, tracked links, open pixel, signed unsubscribe tokens,
// List-Unsubscribe headers, VERP return path). Once the parent says go, each message is
// composed by composeMime, DKIM-signed with the sender domain's key (opened from its sealed row
// by DkimKeyVault) by dkimSigned, as MailTransport signs, and handed to a
// nodemailer SMTP pool the way MailTransport does (the pool's transport interface, no
// composer) with the same pool options. So the bytes are Herald's, signature included, and the
// signing, which no sender can do ahead (each signature covers the message's own headers and
// time), is inside the timed window on both sides; no database, no queue, no rendering.
//
// Env: SMTP_URL (its ?maxConnections= is this process's pool size), CAMPAIGN_ID, OFFSET and
// COUNT (this process's share of the campaign's subscribers, ordered by id), plus the bench's
// DATABASE_URL, HERALD_SECRET and PUBLIC_URL (the tokens and links are signed with them).
// IPC: sends {type:'ready', bytes} once built, waits for {type:'go'}, then sends
// {type:'done', startedAt, endedAt, cpuMs} and exits; it also exits when the parent goes away.
import { PrismaPg } from '@prisma/adapter-pg';
import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type MailMessage from 'nodemailer/lib/mailer/mail-message';
import { CampaignMessageBuilder } from '../../src/campaigns/content/campaign-message';
import { RecipientTokens } from '../../src/message-refs/recipient-token';
import { DkimKeyVault } from '../../src/domains/dkim-keys';
import { returnPathHost } from '../../src/domains/dns-records';
import { RecordCheck } from '../../src/domains/record-checks';
import { SenderIdentity } from '../../src/domains/sender-identity';
import { VerpAddresses } from '../../src/message-refs/verp-address';
import { PrismaClient } from '../../src/generated/prisma/client';
import { withOptOut } from '../../src/campaigns/content/opt-out-footer';
import { loadConfig } from '../../src/platform/config/config';
import { KeyedHasher } from '../../src/platform/crypto/keyed-hasher';
import { dkimSigned } from '../../src/platform/mail/dkim-signature';
import { composeMime } from '../../src/platform/mail/mime-composer';
import { messageIdHeader, OutgoingMessage } from '../../src/platform/mail/mail-transport';
import { compileMessage, textFromHtml } from '../../src/templates/template-renderer';

const config = loadConfig();
const url = new URL(config.smtpUrl!);
const campaignId = process.env.CAMPAIGN_ID!;
const offset = Number(process.env.OFFSET ?? 0);
const count = Number(process.env.COUNT);
const poolSize = Number(url.searchParams.get('maxConnections') ?? 8);
/** Messages handed to the pool at once: enough to keep every connection busy. */
const WINDOW = 400;
/**
 * At most this many distinct messages are built (a million would take gigabytes); past that
 * they are reused in turn, each send with its own envelope recipient.
 */
const DISTINCT = 50_000;

interface Prepared {
  message: OutgoingMessage;
  messageId: string;
}

/** The sender identity SenderDomainsService.signingIdentity would give, from the same rows. */
async function senderIdentity(prisma: PrismaClient, accountId: string, from: string) {
  const name = /@([^\s>@]+)>?\s*$/.exec(from)?.[1]?.toLowerCase();
  const key = await prisma.senderDomainKey.findFirst({
    where: { accountId, status: 'active', domain: { accountId, name } },
    include: { domain: true },
  });
  if (!key) throw new Error(`no signing key for ${name}: the bench's domain is missing`);
  const checks = key.domain.checks as unknown as Record<string, RecordCheck | undefined>;
  const ready =
    checks.return_path?.status === 'found' &&
    checks.return_path.value === config.bounceDomain &&
    checks.spf?.status === 'found';
  const identity: SenderIdentity = {
    dkim: {
      domainName: key.domain.name,
      keySelector: key.selector,
      privateKey: new DkimKeyVault(config).open(key.privateKeyEncrypted, key.id),
    },
    returnPathDomain: ready ? returnPathHost(key.domain.name) : undefined,
  };
  return identity;
}

async function prepare(): Promise<Prepared[]> {
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: config.databaseUrl }),
  });
  try {
    const campaign = await prisma.campaign.findUniqueOrThrow({ where: { id: campaignId } });
    const account = await prisma.account.findUniqueOrThrow({ where: { id: campaign.accountId } });
    const subscribers = await prisma.subscriber.findMany({
      where: { accountId: campaign.accountId },
      orderBy: { id: 'asc' },
      skip: offset,
      take: Math.min(count, DISTINCT),
    });
    if (subscribers.length === 0) throw new Error('no subscribers to build messages for');
    const compiled = await compileMessage(
      withOptOut({
        subject: campaign.subject,
        html: campaign.html,
        text: campaign.text ?? (campaign.html === null ? null : await textFromHtml(campaign.html)),
      }),
    );
    const footer = { name: account.name, postalAddress: account.postalAddress };
    const sender = await senderIdentity(prisma, campaign.accountId, campaign.fromAddress);
    const hasher = new KeyedHasher(config.secret);
    const builder = new CampaignMessageBuilder(
      config,
      new RecipientTokens(hasher),
      new VerpAddresses(hasher, config),
    );
    const prepared: Prepared[] = [];
    for (const subscriber of subscribers) {
      const message = await builder.build(campaign, compiled, subscriber, footer, sender);
      prepared.push({ message, messageId: messageIdHeader(message.messageId, message.from) });
    }
    return prepared;
  } finally {
    await prisma.$disconnect();
  }
}

/** As MailTransport's `composedMail`: finished bytes in the shape the SMTP pool takes. */
function composedMail(envelope: { from: string; to: string[] }, messageId: string, bytes: Buffer) {
  const message = {
    getEnvelope: () => envelope,
    messageId: () => messageId,
    getHeader: (name: string) => (name.toLowerCase() === 'message-id' ? messageId : undefined),
    createReadStream: () => Readable.from([bytes]),
  };
  return { data: {}, message } as unknown as MailMessage;
}

async function main(): Promise<void> {
  const messages = await prepare();
  const transport: Transporter = nodemailer.createTransport({
    pool: true,
    host: url.hostname,
    port: Number(url.port),
    secure: false,
    maxConnections: poolSize,
    maxMessages: Infinity,
  });
  const send = (mail: MailMessage) =>
    new Promise<void>((resolve, reject) =>
      transport.transporter.send(mail, (error) => (error ? reject(error) : resolve())),
    );
  /** What MailTransport.sendWhen does to a built message: composed, then signed. */
  const finished = async ({ message, messageId }: Prepared) => {
    const composed = composeMime({ ...message, messageId });
    if (!composed) throw new Error('composeMime declined the campaign message');
    const envelope = { from: message.envelopeFrom ?? composed.fromAddress, to: [message.to] };
    return { envelope, bytes: await dkimSigned(composed.raw, message.dkim!) };
  };
  const sample = await finished(messages[0]);
  await new Promise<void>((go) => {
    process.on('message', (message: { type: string }) => message.type === 'go' && go());
    process.send!({ type: 'ready', bytes: sample.bytes.length });
  });

  const startedAt = Date.now();
  const cpuBefore = process.cpuUsage();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      const prepared = messages[index % messages.length];
      const { bytes, envelope } = await finished(prepared);
      const to = index < messages.length ? envelope.to : [`raw${offset + index}@example.com`];
      await send(composedMail({ from: envelope.from, to }, prepared.messageId, bytes));
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, lane));
  const endedAt = Date.now();
  const cpu = process.cpuUsage(cpuBefore);
  transport.close();
  const done = { type: 'done', startedAt, endedAt, cpuMs: (cpu.user + cpu.system) / 1000 };
  process.send!(done, () => process.exit(0));
}

process.on('disconnect', () => process.exit(0));
main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
