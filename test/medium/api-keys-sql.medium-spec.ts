import { Client, Notification } from 'pg';
import { hashSecret } from '../../src/auth/api-key-secret';
import { ApiKeysRepository } from '../../src/auth/api-keys.repository';
import { KEY_CHANGES_CHANNEL } from '../../src/auth/api-keys.sql';
import { KEY_TOUCH_INTERVAL_MS } from '../../src/auth/auth.settings';
import { KeyedHasher } from '../../src/platform/crypto/keyed-hasher';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * The statements of api-keys.sql.ts through ApiKeysRepository on PostgreSQL: the lookup by
 * secret hash that gives a request its account, the last-used touch that writes only the
 * key of its own account, and the trigger that announces every change of a key.
 */
describe('api-keys.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let keys: ApiKeysRepository;
  let hasher: KeyedHasher;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    keys = ctx.get(ApiKeysRepository);
    hasher = ctx.get(KeyedHasher);
    accountId = parseAccountId(await ctx.make.account('Keys'));
    otherId = parseAccountId(await ctx.make.account('Other keys'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const lastUsedAt = async (id: string) =>
    (await ctx.prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt;

  it('finds a key by its secret hash with the account it belongs to, and nothing else', async () => {
    const mine = await ctx.make.key(accountId, ['subscribers:read']);
    const theirs = await ctx.make.key(otherId);
    const found = await keys.findByHashAcrossAccounts(hashSecret(hasher, mine.key));
    expect(found).toEqual({
      id: mine.id,
      accountId,
      scopes: ['subscribers:read'],
      status: 'active',
      lastUsedAt: null,
    });
    expect((await keys.findByHashAcrossAccounts(hashSecret(hasher, theirs.key)))?.accountId).toBe(
      otherId,
    );
    expect(await keys.findByHashAcrossAccounts(hashSecret(hasher, `${mine.key}x`))).toBeUndefined();
  });

  it('touches a key once per interval, and never a key of another account', async () => {
    const mine = await ctx.make.key(accountId);
    const stored = (await keys.findByHashAcrossAccounts(hashSecret(hasher, mine.key)))!;
    const first = new Date('2030-01-01T00:00:00Z');
    await keys.touch(stored, first);
    expect(await lastUsedAt(mine.id)).toEqual(first);
    // Within the interval the write is skipped; after it, the new time is written.
    await keys.touch({ ...stored }, new Date(first.getTime() + KEY_TOUCH_INTERVAL_MS - 1));
    expect(await lastUsedAt(mine.id)).toEqual(first);
    const later = new Date(first.getTime() + KEY_TOUCH_INTERVAL_MS);
    await keys.touch(stored, later);
    expect(await lastUsedAt(mine.id)).toEqual(later);

    // The same key id claimed for another account writes nothing.
    const forged = { ...stored, accountId: otherId, lastUsedAt: null };
    await keys.touch(forged, new Date('2031-01-01T00:00:00Z'));
    expect(await lastUsedAt(mine.id)).toEqual(later);
  });

  it('announces a change of status with the key id, once committed', async () => {
    const mine = await ctx.make.key(accountId);
    const listener = new Client({ connectionString: env.config.databaseUrl });
    const heard: Notification[] = [];
    listener.on('notification', (message) => heard.push(message));
    await listener.connect();
    try {
      await listener.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
      // A touch changes none of what a cache holds: it is not announced.
      const stored = (await keys.findByHashAcrossAccounts(hashSecret(hasher, mine.key)))!;
      await keys.touch(stored, new Date());
      expect(await keys.setStatus(otherId, mine.id, 'revoked')).toBe(false);
      expect(await keys.setStatus(accountId, mine.id, 'revoked')).toBe(true);
      await waitFor(() => heard.length > 0);
      expect(heard.map((n) => [n.channel, n.payload])).toEqual([[KEY_CHANGES_CHANNEL, mine.id]]);
      expect((await keys.findByHashAcrossAccounts(hashSecret(hasher, mine.key)))?.status).toBe(
        'revoked',
      );
    } finally {
      await listener.end();
    }
  });
});
