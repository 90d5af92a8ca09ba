import { SenderDomainsRepository } from '../../src/domains/sender-domains.repository';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of sender-domains.sql.ts through SenderDomainsRepository on PostgreSQL: the
 * domain row lock that lets one rotation at a time add a key and keeps check results on the
 * account's own domain, and the re-check claim that hands each due domain, of any account,
 * to one worker.
 */
describe('sender-domains.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let domains: SenderDomainsRepository;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    domains = ctx.get(SenderDomainsRepository);
    accountId = parseAccountId(await ctx.make.account('Domains'));
    otherId = parseAccountId(await ctx.make.account('Other domains'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const key = () => ({
    id: newId(),
    selector: `s${newId().slice(-8)}`,
    publicKey: 'public',
    privateKeyEncrypted: 'sealed',
  });

  async function domain(owner: AccountId, name = `${newId().slice(-12)}.example.test`) {
    const created = await domains.create(owner, { id: newId(), name }, key());
    if (!created || created === 'quota_exceeded') throw new Error(`domain ${name} not created`);
    return created;
  }

  /** A domain whose first key was found: it signs, and the domain can rotate. */
  async function verified(owner: AccountId) {
    const created = await domain(owner);
    const checkedAt = new Date();
    await domains.saveCheck(owner, created.id, {
      status: 'verified',
      checks: {},
      verifiedAt: checkedAt,
      checkedAt,
      promoteKeyId: created.keys[0].id,
    });
    return created;
  }

  it('promotes the found key under the lock, and never writes a check on another account', async () => {
    const created = await domain(accountId);
    const outcome = {
      status: 'verified' as const,
      checks: {},
      verifiedAt: new Date(),
      checkedAt: new Date(),
      promoteKeyId: created.keys[0].id,
    };
    expect(await domains.saveCheck(otherId, created.id, outcome)).toBe(false);
    expect(await domains.findById(accountId, created.id)).toMatchObject({
      status: 'pending',
      keys: [{ status: 'pending' }],
    });
    expect(await domains.saveCheck(accountId, created.id, outcome)).toBe(true);
    expect(await domains.findById(accountId, created.id)).toMatchObject({
      status: 'verified',
      keys: [{ status: 'active' }],
    });
  });

  it('adds one rotation key at a time, even when two rotations race', async () => {
    const created = await verified(accountId);
    expect(await domains.addRotationKey(otherId, created.id, key())).toBe('not_found');
    const outcomes = await Promise.all([
      domains.addRotationKey(accountId, created.id, key()),
      domains.addRotationKey(accountId, created.id, key()),
      domains.addRotationKey(accountId, created.id, key()),
    ]);
    expect(outcomes.sort()).toEqual(['added', 'rotation_pending', 'rotation_pending']);
    const live = (await domains.findById(accountId, created.id))!.keys;
    expect(live.map((k) => k.status).sort()).toEqual(['active', 'pending']);
  });

  it('refuses a rotation of a domain that has no signing key yet', async () => {
    const created = await domain(accountId);
    expect(await domains.addRotationKey(accountId, created.id, key())).toBe('not_verified');
  });

  it('claims each due domain of every account once, and none checked since the cutoff', async () => {
    // Domains created by the other tests are due too; this one moves them out of the way.
    await domains.claimDueForRecheckAcrossAccounts(new Date(Date.now() + 60_000), 10_000);
    const mine = await domain(accountId);
    const theirs = await domain(otherId);
    const fresh = await domain(accountId);
    await ctx.prisma.senderDomain.updateMany({
      where: { id: { in: [mine.id, theirs.id] } },
      data: { lastCheckedAt: new Date(Date.now() - 2 * 86_400_000) },
    });
    await ctx.prisma.senderDomain.updateMany({
      where: { id: fresh.id },
      data: { lastCheckedAt: new Date() },
    });
    const cutoff = new Date(Date.now() - 86_400_000);

    const [a, b] = await Promise.all([
      domains.claimDueForRecheckAcrossAccounts(cutoff, 10),
      domains.claimDueForRecheckAcrossAccounts(cutoff, 10),
    ]);
    const claimed = [...a, ...b].sort((x, y) => x.id.localeCompare(y.id));
    expect(claimed).toEqual(
      [
        { id: mine.id, accountId },
        { id: theirs.id, accountId: otherId },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
    expect(await domains.claimDueForRecheckAcrossAccounts(cutoff, 10)).toEqual([]);
    const moved = await domains.findById(accountId, mine.id);
    expect(moved!.lastCheckedAt!.getTime()).toBeGreaterThan(cutoff.getTime());
  });

  it('claims no more than the limit, oldest check first', async () => {
    await domains.claimDueForRecheckAcrossAccounts(new Date(Date.now() + 60_000), 10_000);
    const older = await domain(otherId);
    const newer = await domain(accountId);
    await ctx.prisma.senderDomain.update({
      where: { id: older.id },
      data: { lastCheckedAt: new Date(Date.now() - 3 * 86_400_000) },
    });
    await ctx.prisma.senderDomain.update({
      where: { id: newer.id },
      data: { lastCheckedAt: new Date(Date.now() - 2 * 86_400_000) },
    });
    const cutoff = new Date(Date.now() - 86_400_000);
    expect(await domains.claimDueForRecheckAcrossAccounts(cutoff, 1)).toEqual([
      { id: older.id, accountId: otherId },
    ]);
    expect(await domains.claimDueForRecheckAcrossAccounts(cutoff, 1)).toEqual([
      { id: newer.id, accountId },
    ]);
  });
});
