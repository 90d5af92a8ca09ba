import { UsersRepository } from '../../src/dashboard/people/users.repository';
import { SessionsService } from '../../src/dashboard/sessions/sessions.service';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';
import { latch, waitFor } from '../support/wait-for';

/**
 * The owner lock of users.sql.ts through UsersRepository on PostgreSQL: it returns the
 * account's owners and no one else, and a second change of owners waits for the first and
 * sees its result, so two demotions at once cannot leave an account without an owner; and that
 * lock leaves the rows' keys alone, so the owners can sign in meanwhile.
 */
describe('users.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let users: UsersRepository;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    users = ctx.get(UsersRepository);
    accountId = parseAccountId(await ctx.make.account('Owners'));
    otherId = parseAccountId(await ctx.make.account('Other owners'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  async function person(account: AccountId, role: 'owner' | 'member'): Promise<string> {
    const id = newId();
    const email = `${id}@people.test`;
    await ctx.prisma.user.create({
      data: { id, accountId: account, email, emailNormalized: email, passwordHash: 'x', role },
    });
    return id;
  }

  it("locks the account's owners and returns them, not its members nor another account's", async () => {
    const owners = [await person(accountId, 'owner'), await person(accountId, 'owner')];
    await person(accountId, 'member');
    await person(otherId, 'owner');
    const locked = await ctx.prisma.$transaction((tx) => users.lockOwners(accountId, tx));
    expect(locked.sort()).toEqual(owners.sort());
  });

  it('makes a second change of owners wait for the first and see what it did', async () => {
    const { account, second, commit, demotion } = await demotionHeld('Two demotions');
    const secondLook = ctx.prisma.$transaction((tx) => users.lockOwners(account, tx));
    await env.waitForLockWaiter(
      '%FROM users%FOR NO KEY UPDATE%',
      'the second change never waited for the first',
    );
    commit.open();
    await demotion;
    expect(await secondLook).toEqual([second]);
  });

  it('lets an owner sign in while a change of owners is uncommitted', async () => {
    const { account, second, commit, demotion } = await demotionHeld('Sign-in beside a demotion');

    // The session's row refers to its user (a key-share lock on the user's row), which the
    // owners' lock must not refuse: a change of roles holds up no one's sign-in.
    const signingIn = ctx.get(SessionsService).start({ id: second, accountId: account });
    const outcome = await env.settledOrWaiting(
      signingIn,
      '%INSERT INTO%sessions%',
      'waiting for the demotion to commit',
    );
    commit.open();
    await Promise.all([demotion, signingIn]);
    expect(outcome).toBe('settled');
    expect(await ctx.prisma.session.count({ where: { userId: second } })).toBe(1);
  });

  /**
   * A new account with two owners, and a transaction under way that has locked them and
   * demoted the first; it commits once the test opens `commit`.
   */
  async function demotionHeld(name: string) {
    const account = parseAccountId(await ctx.make.account(name));
    const [first, second] = [await person(account, 'owner'), await person(account, 'owner')];
    const commit = latch();
    const demotion = ctx.prisma.$transaction(async (tx) => {
      expect((await users.lockOwners(account, tx)).sort()).toEqual([first, second].sort());
      await users.setRole(account, first, 'member', tx);
      await commit.opened;
    });
    await waitFor(() => ownerLockHeld(account), {
      message: 'the demotion never took the lock',
    });
    return { account, second, commit, demotion };
  }

  /** Whether another transaction holds the account's owners' rows locked. */
  async function ownerLockHeld(account: AccountId): Promise<boolean> {
    const rows = await env.sql(
      `SELECT 1 FROM users WHERE account_id = $1 AND role = 'owner' FOR UPDATE SKIP LOCKED`,
      [account],
    );
    return rows.length < 2;
  }
});
