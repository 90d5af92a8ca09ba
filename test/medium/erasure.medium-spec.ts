import { CampaignLedgerRepository } from '../../src/campaigns/ledger/campaign-ledger.repository';
import { ErasureService } from '../../src/erasure/erasure.service';
import { SegmentsService } from '../../src/segments/segments.service';
import { SubscribersService } from '../../src/subscribers/subscribers.service';
import type { SendTransactionalDto } from '../../src/transactional/transactional.dto';
import { TransactionalService } from '../../src/transactional/transactional.service';
import {
  counters,
  deliverBatch,
  ledgerRows,
  snapshotAll,
  startedCampaign,
  startRun,
} from '../support/campaign-ledger-fixtures';
import { Tenant } from '../support/factories';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * Erasure through ErasureService on PostgreSQL, participant by participant: what each domain
 * scrubs (the subscriber row, pending sends, transactional mail and its idempotency keys,
 * emails named in segment filters), what it keeps (anonymous send history, the keyed-hash
 * tombstone, the audit event), and that the address is then nowhere in the database.
 */
describe('erasure participants', () => {
  let env: TestEnv;
  let ctx: TestContext;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** Every row of every table in this database whose JSON text contains `needle`. */
  async function rowsContaining(needle: string): Promise<string[]> {
    const tables = await ctx.prisma.$queryRaw<{ name: string }[]>`
      SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
    const found: string[] = [];
    for (const { name } of tables) {
      const rows = await ctx.prisma.$queryRawUnsafe<{ row: string }[]>(
        `SELECT row_to_json(t)::text AS row FROM "${name}" t
          WHERE row_to_json(t)::text ILIKE '%' || $1 || '%'`,
        needle,
      );
      found.push(...rows.map((r) => `${name}: ${r.row}`));
    }
    return found;
  }

  const mail = (to: string, subject: string) =>
    ({ to, from: 'shop@acme.test', subject, text: `Dear ${to}` }) as SendTransactionalDto;

  describe('of a subscriber known everywhere', () => {
    let tenant: Tenant;
    let ada: { id: string };
    let bob: { id: string };
    let pendingCampaign: string;
    let sentCampaign: string;
    let namingSegment: string;
    let otherSegment: string;
    let receipt: { email_hash: string; erased_at: string };
    let sentCountersBefore: Awaited<ReturnType<typeof counters>>;

    beforeAll(async () => {
      tenant = await ctx.make.tenant('Erasing');
      const { accountId, principal } = tenant;
      ada = await ctx.make.subscriber(accountId, {
        email: 'Ada.Lovelace@example.com',
        emailNormalized: 'ada.lovelace@example.com',
        firstName: 'Augusta',
        lastName: 'Lovelace',
        phone: '+44 20 7946 0001',
        customFields: { favourite: 'engines' },
      });
      bob = await ctx.make.subscriber(accountId, { email: 'bob@example.com' });

      // A send that has not reached Ada yet, and one that already has.
      sentCampaign = await startedCampaign(ctx, tenant);
      await snapshotAll(ctx, tenant, sentCampaign);
      await deliverBatch(ctx, accountId, sentCampaign);
      sentCountersBefore = await counters(ctx, sentCampaign);
      pendingCampaign = await startedCampaign(ctx, tenant);
      await snapshotAll(ctx, tenant, pendingCampaign);

      // Transactional mail to both, each created under an idempotency key.
      const transactional = ctx.get(TransactionalService);
      await transactional.send(
        principal,
        mail('ada.lovelace@example.com', 'Private matter'),
        'k-ada',
      );
      await transactional.send(principal, mail('bob@example.com', 'Receipt'), 'k-bob');

      namingSegment = (
        await ctx.make.segment(accountId, {
          field: 'email',
          op: 'in',
          value: ['ADA.LOVELACE@example.com', 'bob@example.com'],
        })
      ).id;
      otherSegment = (
        await ctx.make.segment(accountId, { field: 'last_name', op: 'eq', value: 'Lovelace' })
      ).id;

      receipt = await ctx.get(ErasureService).erase(principal, ' ada.LOVELACE@Example.com ');
    });

    it('deletes the subscriber and keeps a keyed-hash tombstone', async () => {
      expect(await ctx.prisma.subscriber.findUnique({ where: { id: ada.id } })).toBeNull();
      expect(await ctx.prisma.subscriber.findUnique({ where: { id: bob.id } })).not.toBeNull();
      const tombstones = await ctx.prisma.erasedIdentity.findMany({
        where: { accountId: tenant.accountId },
      });
      expect(tombstones).toEqual([
        expect.objectContaining({ emailHash: receipt.email_hash, subscriberId: ada.id }),
      ]);
      expect(receipt.email_hash).not.toMatch(/ada|lovelace/i);
    });

    it('skips her pending sends and moves the counters with them; keeps sent history', async () => {
      const pending = await ledgerRows(ctx, pendingCampaign);
      expect(pending.find((row) => row.subscriber_id === ada.id)).toMatchObject({
        status: 'skipped',
        skip_reason: 'erased',
      });
      expect(pending.find((row) => row.subscriber_id === bob.id)).toMatchObject({
        status: 'pending',
      });
      expect(await counters(ctx, pendingCampaign)).toMatchObject({
        recipient_count: 1,
        skipped_erased_count: 1,
      });
      // No worker can claim her any more.
      const run = await startRun(ctx, tenant.accountId, pendingCampaign);
      expect((await ctx.get(CampaignLedgerRepository).claim(run, 10)).ids).toEqual([bob.id]);

      const sent = await ledgerRows(ctx, sentCampaign);
      expect(sent.find((row) => row.subscriber_id === ada.id)).toMatchObject({ status: 'sent' });
      expect(await counters(ctx, sentCampaign)).toEqual(sentCountersBefore);
    });

    it('scrubs her transactional mail, cancels it if unsent, and forgets its key', async () => {
      const messages = await ctx.prisma.transactionalMessage.findMany({
        where: { accountId: tenant.accountId },
        orderBy: { createdAt: 'asc' },
      });
      const [hers, his] = messages;
      expect(hers).toMatchObject({
        toAddress: null,
        subject: null,
        html: null,
        text: null,
        status: 'failed',
      });
      expect(hers.scrubbedAt).toBeInstanceOf(Date);
      expect(his).toMatchObject({
        toAddress: 'bob@example.com',
        subject: 'Receipt',
        status: 'queued',
      });
      const keys = await ctx.prisma.idempotencyKey.findMany({
        where: { accountId: tenant.accountId },
        select: { key: true },
      });
      expect(keys).toEqual([{ key: 'k-bob' }]);
    });

    it('replaces her address in segment filters, keeping every other condition', async () => {
      const segments = ctx.get(SegmentsService);
      const naming = await segments.get(tenant.principal, namingSegment);
      expect(naming.filter).toEqual({
        field: 'email',
        op: 'in',
        value: [`erased:${receipt.email_hash}`, 'bob@example.com'],
      });
      expect(naming.count).toBe(1);
      // A filter that names no email is not touched (it just matches nobody now).
      const other = await segments.get(tenant.principal, otherSegment);
      expect(other.filter).toEqual({ field: 'last_name', op: 'eq', value: 'Lovelace' });
      expect(other.count).toBe(0);
    });

    it('audits the erasure by its hash and the key that asked', async () => {
      const events = await ctx.prisma.auditEvent.findMany({
        where: { accountId: tenant.accountId, action: 'identity.erased' },
      });
      expect(events).toEqual([
        expect.objectContaining({ subjectHash: receipt.email_hash, apiKeyId: tenant.keyId }),
      ]);
    });

    it('leaves her address and her personal data nowhere in the database', async () => {
      // The scan finds what is there: Bob's address is in several tables.
      expect((await rowsContaining('bob@example.com')).length).toBeGreaterThan(2);
      // "Lovelace" stays only where a client wrote it into a filter that names no email.
      for (const needle of ['ada.lovelace', 'Augusta', '7946 0001', 'Private matter', 'engines']) {
        expect({ needle, rows: await rowsContaining(needle) }).toEqual({ needle, rows: [] });
      }
    });

    it('answers a repeated erasure with the same receipt, changing nothing', async () => {
      const again = await ctx
        .get(ErasureService)
        .erase(tenant.principal, 'ada.lovelace@example.com');
      expect(again).toEqual(receipt);
      expect(
        await ctx.prisma.erasedIdentity.count({ where: { accountId: tenant.accountId } }),
      ).toBe(1);
      expect(
        await ctx.prisma.auditEvent.count({
          where: { accountId: tenant.accountId, action: 'identity.erased' },
        }),
      ).toBe(1);
    });

    it('refuses to store her address again, as a subscriber or as a recipient', async () => {
      await expect(
        ctx.get(SubscribersService).create(tenant.principal, { email: 'ada.lovelace@example.com' }),
      ).rejects.toMatchObject({ status: 409 });
      await expect(
        ctx
          .get(TransactionalService)
          .send(tenant.principal, mail('ada.lovelace@example.com', 'Hi')),
      ).rejects.toMatchObject({ status: 409 });
      expect(await rowsContaining('ada.lovelace')).toEqual([]);
    });
  });

  it('erases an address Herald never saw: a tombstone without a subscriber', async () => {
    const tenant = await ctx.make.tenant('Early');
    const receipt = await ctx.get(ErasureService).erase(tenant.principal, 'not-yet@example.com');
    expect(
      await ctx.prisma.erasedIdentity.findMany({ where: { accountId: tenant.accountId } }),
    ).toEqual([expect.objectContaining({ emailHash: receipt.email_hash, subscriberId: null })]);
  });

  it('erases within one account only', async () => {
    const first = await ctx.make.tenant('First');
    const second = await ctx.make.tenant('Second');
    await ctx.make.subscriber(first.accountId, { email: 'shared@example.com' });
    const kept = await ctx.make.subscriber(second.accountId, { email: 'shared@example.com' });
    const receipt = await ctx.get(ErasureService).erase(first.principal, 'shared@example.com');
    expect(await ctx.prisma.subscriber.findUnique({ where: { id: kept.id } })).not.toBeNull();
    // The tombstone hash is keyed per account: it does not link the two accounts' people.
    const other = await ctx.get(ErasureService).erase(second.principal, 'shared@example.com');
    expect(other.email_hash).not.toBe(receipt.email_hash);
  });
});
