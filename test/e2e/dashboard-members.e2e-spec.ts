import { UsersService } from '../../src/dashboard/people/users.service';
import { parseAccountId } from '../../src/platform/database/account-id';
import { TestApi, TestEnv } from '../support/test-env';
import { DashboardAgent, PASSWORD } from './dashboard-agent';

const MEMBER_PASSWORD = 'a member passphrase';

interface Person {
  id: string;
  email: string;
  role: string;
}

/**
 * The people of an account and what each role may do: owners manage people and roles,
 * admins everything else including API keys and inviting, members everything but keys,
 * invitations and people. A removed person's sessions end at once; an account always keeps
 * an owner.
 */
describe('dashboard members and roles', () => {
  let env: TestEnv;
  let api: TestApi;
  let owner: DashboardAgent;
  let accountId: string;

  beforeAll(async () => {
    env = await TestEnv.create({ SIGNUP: 'closed', PUBLIC_URL: 'http://herald.example' });
    api = await TestApi.start(env, { workers: false });
    accountId = await api.account('Acme');
    await api.app
      .get(UsersService)
      .createForAccount(parseAccountId(accountId), 'owner@acme.test', PASSWORD);
    owner = new DashboardAgent(api);
    expect((await owner.signIn('owner@acme.test')).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  /** Someone invited by `by` who accepted: signed in, with their id. */
  const join = async (email: string, by = owner) => {
    const invited = await by.post('/dashboard/api/invitations', { email });
    expect(invited.status).toBe(201);
    const token = /#([\w-]{43})$/.exec(invited.body.url as string)![1];
    const agent = new DashboardAgent(api);
    await agent.probe();
    const accepted = await agent.post('/dashboard/api/invitations/accept', {
      token,
      name: email.split('@')[0],
      password: MEMBER_PASSWORD,
    });
    expect(accepted.status).toBe(201);
    agent.csrf = accepted.body.csrf_token;
    return { agent, id: accepted.body.user.id as string };
  };
  const people = async (by = owner) =>
    ((await by.get('/dashboard/api/people').expect(200)).body as { data: Person[] }).data;
  const setRole = (id: string, role: string, by = owner) =>
    by.patch(`/dashboard/api/people/${id}`, { role });
  const remove = (id: string, by = owner) => by.delete(`/dashboard/api/people/${id}`);
  const ownerId = async () => (await people()).find((p) => p.email === 'owner@acme.test')!.id;

  it('keeps members away from API keys, invitations and people, and lets an owner promote them', async () => {
    const { agent: member, id } = await join('mia@example.test');
    expect((await member.get('/dashboard/api/session')).body.user.role).toBe('member');
    // Everything else of the account is theirs to use.
    expect((await member.get('/dashboard/api/subscribers')).status).toBe(200);
    for (const refused of [
      member.get('/dashboard/api/keys'),
      member.post('/dashboard/api/keys', { name: 'mine', scopes: ['subscribers:read'] }),
      member.post('/dashboard/api/invitations', { email: 'friend@example.test' }),
      setRole(id, 'owner', member),
      remove(await ownerId(), member),
    ]) {
      const response = await refused;
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('insufficient_scope');
    }

    const promoted = await setRole(id, 'admin');
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ id, role: 'admin' });
    // The change holds from the member's next request on, without signing in again.
    expect((await member.get('/dashboard/api/session')).body.user.role).toBe('admin');
    expect((await member.get('/dashboard/api/keys')).status).toBe(200);
    const key = await member.post('/dashboard/api/keys', {
      name: 'admin key',
      scopes: ['subscribers:read'],
    });
    expect(key.status).toBe(201);
    expect((await member.post(`/dashboard/api/keys/${key.body.id}/revoke`)).status).toBe(200);
  });

  it('lets an admin invite and remove members, but not change roles or touch owners and admins', async () => {
    const { agent: admin, id: adminId } = await join('ada@example.test');
    expect((await setRole(adminId, 'admin')).status).toBe(200);
    const { id: memberId } = await join('max@example.test', admin);
    const { id: otherAdminId } = await join('ava@example.test');
    expect((await setRole(otherAdminId, 'admin')).status).toBe(200);

    expect((await setRole(memberId, 'admin', admin)).status).toBe(403);
    expect((await remove(otherAdminId, admin)).status).toBe(403);
    expect((await remove(await ownerId(), admin)).status).toBe(403);
    expect((await remove(memberId, admin)).status).toBe(204);
    expect((await people()).map((p) => p.id)).not.toContain(memberId);
  });

  it('ends a removed person’s sessions at once, and they cannot sign in again', async () => {
    const { agent: removed, id } = await join('rex@example.test');
    const elsewhere = new DashboardAgent(api);
    expect((await elsewhere.signIn('rex@example.test', MEMBER_PASSWORD)).status).toBe(200);

    expect((await remove(id)).status).toBe(204);
    for (const agent of [removed, elsewhere]) {
      expect((await agent.get('/dashboard/api/subscribers')).status).toBe(401);
      expect((await agent.get('/dashboard/api/session')).body.user).toBeNull();
    }
    expect((await new DashboardAgent(api).signIn('rex@example.test', MEMBER_PASSWORD)).status).toBe(
      401,
    );
    expect((await remove(id)).status).toBe(404);
    const [{ sessions }] = await env.sql<{ sessions: string }>(
      `SELECT count(*) AS sessions FROM sessions WHERE user_id = $1`,
      [id],
    );
    expect(Number(sessions)).toBe(0);
    const audit = await env.sql<{ action: string; metadata: Record<string, unknown> }>(
      `SELECT action, metadata FROM audit_events WHERE action = 'user.removed'`,
    );
    expect(audit.map((a) => a.metadata.member_id)).toContain(id);
  });

  it('never leaves an account without an owner', async () => {
    const self = await ownerId();
    const last = await setRole(self, 'admin');
    expect(last.status).toBe(409);
    expect(last.body.error.message).toMatch(/last owner/);
    expect((await remove(self)).status).toBe(409);

    // Two owners demoting each other at once: one of them stays an owner.
    const { agent: second, id: secondId } = await join('olga@example.test');
    expect((await setRole(secondId, 'owner')).status).toBe(200);
    const both = await Promise.all([setRole(secondId, 'member'), setRole(self, 'member', second)]);
    // One wins. The other finds either that it would leave no owner (409) or, when the winner
    // demoted its author first, that its author may no longer change roles (403).
    const statuses = both.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    expect((await people()).filter((p) => p.role === 'owner')).toHaveLength(1);
    // Whichever won, the first owner is an owner again for what follows.
    if (both[0].status !== 200) expect((await setRole(self, 'owner', second)).status).toBe(200);
  });

  it('refuses unknown people and roles', async () => {
    const { id } = await join('val@example.test');
    expect((await setRole(id, 'superuser')).status).toBe(422);
    expect((await setRole('0190b7a0-0000-7000-8000-000000000000', 'admin')).status).toBe(404);
    expect((await remove('not-an-id')).status).toBe(404);
  });
});
