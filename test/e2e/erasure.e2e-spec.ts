import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { TestApi, TestEnv } from '../support/test-env';

const run = promisify(execFile);

/** Erasure: tombstones, 409 on named writes, audit. */
describe('erasure', () => {
  let env: TestEnv;
  let api: TestApi;
  let auth: string;
  let accountId: string;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
    ({ auth, accountId } = await api.tenant());
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const erase = (email: string) =>
    request(api.server).post('/v1/erasures').set('Authorization', auth).send({ email });
  const create = (body: object) =>
    request(api.server).post('/v1/subscribers').set('Authorization', auth).send(body);

  it('erases a subscriber and answers with the hash and time, idempotently', async () => {
    const { body: subscriber } = await create({
      email: 'gone@example.com',
      first_name: 'Gone',
    }).expect(201);
    const first = await erase('gone@example.com').expect(200);
    expect(Object.keys(first.body).sort()).toEqual(['email_hash', 'erased_at']);
    expect(first.body.email_hash).not.toContain('gone');
    const again = await erase('  GONE@example.com ').expect(200);
    expect(again.body).toEqual(first.body);
    await request(api.server)
      .get(`/v1/subscribers/${subscriber.id}`)
      .set('Authorization', auth)
      .expect(404);
  });

  it('erases an email Herald never saw, and refuses it afterwards', async () => {
    await erase('never-seen@example.com').expect(200);
    const response = await create({ email: 'Never-Seen@example.com' }).expect(409);
    expect(response.body.error).toEqual({
      code: 'conflict',
      message: expect.any(String),
      details: [],
    });
  });

  it('answers 409 to every named write of an erased identity, and audits each by hash only', async () => {
    const { body: subscriber } = await create({ email: 'target@example.com' }).expect(201);
    const { body: bystander } = await create({ email: 'bystander@example.com' }).expect(201);
    const { body: receipt } = await erase('target@example.com').expect(200);

    await create({ email: 'target@example.com' }).expect(409);
    await request(api.server)
      .patch(`/v1/subscribers/${subscriber.id}`)
      .set('Authorization', auth)
      .send({ first_name: 'Back' })
      .expect(409);
    await request(api.server)
      .patch(`/v1/subscribers/${bystander.id}`)
      .set('Authorization', auth)
      .send({ email: 'TARGET@example.com' })
      .expect(409);

    const audit = await env.sql<{ action: string; subject_hash: string; metadata: object }>(
      `SELECT action, subject_hash, metadata FROM audit_events
       WHERE account_id = $1 AND action = 'erased_identity.write_refused' AND subject_hash = $2
       ORDER BY id`,
      [accountId, receipt.email_hash],
    );
    expect(audit.map((row) => row.metadata)).toEqual([
      { endpoint: 'POST /v1/subscribers' },
      { endpoint: 'PATCH /v1/subscribers/{id}' },
      { endpoint: 'PATCH /v1/subscribers/{id}' },
    ]);
    for (const row of audit) expect(row.subject_hash).toBe(receipt.email_hash);
    const everything = JSON.stringify(await env.sql('SELECT * FROM audit_events'));
    expect(everything).not.toMatch(/target@example\.com/i);
  });

  it('leaves no plaintext of the erased email anywhere in the database', async () => {
    const email = 'dump.me@example.com';
    await create({
      email,
      first_name: 'Dumpling',
      custom_fields: { backup_email: email },
    }).expect(201);
    await erase(email).expect(200);
    await create({ email }).expect(409);
    const url = new URL(env.config.databaseUrl);
    const { stdout } = await run(
      'pg_dump',
      [
        '-h',
        url.hostname,
        '-p',
        url.port || '5432',
        '-U',
        'postgres',
        '--data-only',
        url.pathname.slice(1),
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stdout).toContain('erased_identities');
    expect(stdout.toLowerCase()).not.toContain('dump.me');
    expect(stdout).not.toContain('Dumpling');
  });

  it('never leaves the identity behind when a create races its erasure', async () => {
    const attempts = Array.from({ length: 10 }, (_, i) => `racer${i}@example.com`);
    await Promise.all(
      attempts.map(async (email) => {
        const [created, erased] = await Promise.all([create({ email }), erase(email)]);
        expect([201, 409]).toContain(created.status);
        expect(erased.status).toBe(200);
      }),
    );
    const left = await env.sql("SELECT email FROM subscribers WHERE email LIKE 'racer%'");
    expect(left).toEqual([]);
  });

  it('answers 400 without an email and 422 for a malformed one', async () => {
    await request(api.server).post('/v1/erasures').set('Authorization', auth).send({}).expect(400);
    const response = await erase('not an email').expect(422);
    expect(response.body.error.details).toEqual([
      { field: 'email', code: 'invalid_format', message: expect.any(String) },
    ]);
  });
});
