import { ErasureGuard } from '../../src/erasure/erasure-guard';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import {
  BulkItem,
  BulkOptions,
  SubscriberBulkWriter,
} from '../../src/subscribers/subscriber-bulk-writer';
import {
  StagedBatch,
  stageFields,
  stageLine,
  StageShape,
} from '../../src/subscribers/subscriber-stage';
import { PROFILE_FIELDS } from '../../src/subscribers/subscriber-fields';
import { CreateSubscriberDto } from '../../src/subscribers/subscriber.dto';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The staged write (one COPY into a temporary table, one statement deciding and writing the
 * batch) against the bulk writer's own `write`, which decides every item in JavaScript: the same
 * items on two accounts set up alike must give the same outcomes, the same rows, the same
 * audited refusals and the same `subscriber.unsubscribed` events.
 */
describe('SubscriberBulkWriter.writeStaged, against write', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let writer: SubscriberBulkWriter;
  let guard: ErasureGuard;
  let pool: PgPool;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    writer = ctx.get(SubscriberBulkWriter);
    guard = ctx.get(ErasureGuard);
    pool = ctx.get(PgPool);
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const manyKeys = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`k${i}`, i]));

  /** An account with the subscribers, the suppression, the tombstone and the endpoint each run starts from. */
  async function account(name: string): Promise<AccountId> {
    const accountId = parseAccountId(await ctx.make.account(name));
    const make = (email: string, extra: object = {}) =>
      ctx.make.subscriber(accountId, { email, emailNormalized: email, ...extra });
    await make('gone@x.example', { status: 'unsubscribed' });
    await make('full@x.example', { customFields: manyKeys });
    await make('plain@x.example', { tags: ['a'], customFields: { plan: 'free' } });
    await make('leaving@x.example');
    await make('same@x.example', { firstName: 'Same', customFields: { plan: 'pro' } });
    await make('back@x.example', { status: 'unsubscribed' });
    await ctx.prisma.suppression.create({
      data: { id: newId(), accountId, emailNormalized: 'gone@x.example', reason: 'complaint' },
    });
    await ctx.prisma.erasedIdentity.create({
      data: { accountId, emailHash: guard.emailHash(accountId, 'erased@x.example') },
    });
    await ctx.prisma.webhookEndpoint.create({
      data: {
        id: newId(),
        accountId,
        url: 'https://hooks.example/in',
        events: ['subscriber.unsubscribed'],
        secretSealed: 'unused',
      },
    });
    return accountId;
  }

  const bodies: [number, Partial<CreateSubscriberDto> & { email: string }][] = [
    [1, { email: 'new@x.example', first_name: 'New', tags: ['t'], custom_fields: { n: 1 } }],
    [2, { email: 'plain@x.example', city: 'Oslo', custom_fields: { seats: 2 } }],
    [3, { email: 'same@x.example', first_name: 'Same', custom_fields: { plan: 'pro' } }],
    // Back to subscribed while suppressed: refused; not suppressed: written.
    [4, { email: 'gone@x.example', status: 'subscribed' }],
    [5, { email: 'back@x.example', status: 'subscribed' }],
    // 99 keys and two more: past the 100 allowed once merged.
    [6, { email: 'full@x.example', custom_fields: { extra1: 1, extra2: 2 } }],
    [7, { email: 'erased@x.example', first_name: 'No' }],
    [8, { email: 'leaving@x.example', status: 'unsubscribed' }],
    // The same emails again: applied after the first, in order; the erased one refused again.
    [9, { email: 'new@x.example', last_name: 'Later', custom_fields: { m: 2 } }],
    [10, { email: 'erased@x.example' }],
    [11, { email: 'PLAIN@x.example', tags: ['b', 'c'] }],
    [12, { email: 'brand@x.example', birthdate: '1990-05-01', interests: [] }],
  ];

  function options(accountId: AccountId, mode: 'upsert' | 'create'): BulkOptions {
    return {
      mode,
      mergeCustomFields: true,
      actor: { accountId },
      endpoint: 'POST /v1/imports',
      announce: 'unsubscribes',
    };
  }

  async function byWrite(accountId: AccountId, mode: 'upsert' | 'create') {
    const items: BulkItem[] = bodies.map(([position, body]) => ({
      position,
      body: body,
    }));
    const outcomes = await pool.transaction((client) =>
      writer.write(client, items, options(accountId, mode)),
    );
    const counts = { created: 0, updated: 0, unchanged: 0, erased: 0 };
    const failed: [number, string | undefined][] = [];
    for (const outcome of outcomes) {
      if (outcome.status === 'failed') failed.push([outcome.position, outcome.errors?.[0]?.code]);
      else counts[outcome.status]++;
    }
    return { counts, failed };
  }

  async function byStagedWrite(accountId: AccountId, mode: 'upsert' | 'create') {
    const shape = new StageShape(PROFILE_FIELDS.map((field) => field.name));
    const batch = new StagedBatch(shape);
    const later: BulkItem[] = [];
    const seen = new Set<string>();
    for (const [position, body] of bodies) {
      const identity = writer.identify(accountId, body);
      const fields = seen.has(identity.email) ? undefined : stageFields(body, shape);
      seen.add(identity.email);
      if (fields) {
        batch.add(stageLine(position, newId(), identity.hash, body.email, identity.email, fields));
      } else {
        later.push({ position, body: body, identity });
      }
    }
    expect(later.map((item) => item.position)).toEqual([9, 10, 11]);
    const outcome = await pool.transaction(
      (client) => writer.writeStaged(client, batch, later, options(accountId, mode)),
      writer.stagingTable,
    );
    const { failed, ...counts } = outcome;
    return {
      counts,
      failed: failed.map((f): [number, string | undefined] => [f.position, f.errors?.[0]?.code]),
    };
  }

  /** What the account's subscribers hold, by email, without ids and times. */
  async function rows(accountId: AccountId) {
    const found = await ctx.prisma.subscriber.findMany({ where: { accountId } });
    return Object.fromEntries(
      found
        .map((row) => {
          const rest: Partial<typeof row> = { ...row };
          for (const key of ['id', 'accountId', 'createdAt', 'updatedAt'] as const)
            delete rest[key];
          return [row.emailNormalized, rest] as const;
        })
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  }

  /** The refusals audited and the events published for the account. */
  async function traces(accountId: AccountId) {
    const refusals = await ctx.prisma.auditEvent.count({
      where: { accountId, action: 'erased_identity.write_refused' },
    });
    const batches = await ctx.prisma.webhookEventBatch.findMany({ where: { accountId } });
    const events = batches.flatMap((batch) =>
      (JSON.parse(batch.events) as { payload: string }[]).map(
        (event) => JSON.parse(event.payload) as { type: string; data: { email: string } },
      ),
    );
    return {
      refusals,
      events: events.map((event) => [event.type, event.data.email]).sort(),
    };
  }

  it.each(['upsert', 'create'] as const)('decides a batch as write does (%s)', async (mode) => {
    const reference = await account(`Reference ${mode}`);
    const staged = await account(`Staged ${mode}`);
    const expected = await byWrite(reference, mode);
    const actual = await byStagedWrite(staged, mode);
    expect(actual).toEqual(expected);
    expect(await rows(staged)).toEqual(await rows(reference));
    expect(await traces(staged)).toEqual(await traces(reference));
    if (mode === 'upsert') {
      expect(expected.failed).toEqual([
        [4, 'suppressed'],
        [6, 'too_many_keys'],
      ]);
      expect(expected.counts).toEqual({ created: 2, updated: 5, unchanged: 1, erased: 2 });
      expect((await traces(staged)).events).toEqual([
        ['subscriber.unsubscribed', 'leaving@x.example'],
      ]);
    }
    expect((await traces(staged)).refusals).toBe(1);
  });
});
