import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SCOPES } from '../../src/auth/scopes';
import { HeraldProcess } from './herald-process';
import { cli, freePort, processEnv, ROOT, waitForOk } from './processes';
import { SmtpSink } from './smtp-sink';
import { TestEnv } from './test-env';
import { ThrowawayPostgres } from './throwaway-postgres';
import { ThrowawayPgBouncer } from './throwaway-pgbouncer';
import { waitFor } from './wait-for';

const run = promisify(execFile);

/** SMTP connections per worker process in fault tests: the bound on a killed worker's duplicates. */
export const SMTP_POOL = 8;
/** The advisory lock holdOutcomeWrites takes and the outcome triggers wait on. */
const HOLD_LOCK = 4242;

export interface RigOptions {
  /** Run the whole instance on a PostgreSQL server of its own (to stop it). */
  postgres?: ThrowawayPostgres;
  /** …or on a Redis of its own (to crash it): a server, a Sentinel group or a Cluster. */
  redis?: RedisPlace;
  /** Extra environment of every Herald process (e.g. SMTP_RETRY_*). */
  env?: Record<string, string>;
  /**
   * Every Herald process reaches PostgreSQL through this PgBouncer (DATABASE_POOLER=pgbouncer),
   * with DATABASE_DIRECT_URL straight to the server, migrations included.
   */
  pgbouncer?: ThrowawayPgBouncer;
  /** The sink keeps each message's body (for a test that reads it), not its headers alone. */
  keepBodies?: boolean;
}

/** Where a rig's Redis is: REDIS_URL (a server or a Sentinel group), or a Cluster's nodes. */
export interface RedisPlace {
  url?: string;
  clusterNodes?: string;
}

export interface Tenant {
  accountId: string;
  auth: string;
}

export interface CampaignStats {
  status: string;
  recipients: number;
  delivered: number;
  failed: number;
  outstanding: number;
  deferred?: number;
  [field: string]: unknown;
}

/**
 * A whole Herald for a fault test, as production runs it: one `--api-only` API process and
 * worker processes, all separate, on their own database and Redis prefix (or on throwaway
 * servers), sending to a real SMTP sink that counts what each recipient got. The test talks to
 * it over HTTP only, and injects faults into the processes, the stores and the sink.
 */
export class FaultRig {
  readonly workers: HeraldProcess[] = [];
  private workerSeq = 0;

  private constructor(
    readonly env: TestEnv,
    readonly sink: SmtpSink,
    readonly api: HeraldProcess,
    readonly base: string,
    private readonly extraEnv: Record<string, string>,
  ) {}

  static async start(options: RigOptions = {}): Promise<FaultRig> {
    const sink = await SmtpSink.start({ keepBodies: options.keepBodies ?? false });
    const env = await TestEnv.create(
      {},
      {
        databaseServer: options.postgres?.serverUrl,
        redisUrl: options.redis?.url,
        redisClusterNodes: options.redis?.clusterNodes,
        migrate: false,
      },
    );
    const bouncerEnv: Record<string, string> = options.pgbouncer
      ? {
          DATABASE_URL: options.pgbouncer.urlFor(env.databaseName),
          DATABASE_DIRECT_URL: env.config.databaseUrl,
          DATABASE_POOLER: 'pgbouncer',
        }
      : {};
    const extraEnv = {
      ...bouncerEnv,
      SMTP_URL: `${sink.url}?maxConnections=${SMTP_POOL}`,
      PUBLIC_URL: 'https://herald.test',
      ALLOW_UNVERIFIED_FROM: '1',
      RATE_LIMIT_SEND: '100000',
      ...options.env,
    };
    let api: HeraldProcess | undefined;
    try {
      // The way an operator migrates: the compiled migrator, against this instance's database.
      await run(process.execPath, ['dist/platform/database/migrate-main.js'], {
        cwd: ROOT,
        env: processEnv(env, bouncerEnv),
      });
      const port = await freePort();
      api = HeraldProcess.start(
        'api',
        'api',
        processEnv(env, { ...extraEnv, PORT: String(port), LOG_LEVEL: 'warn' }),
      );
      const base = `http://127.0.0.1:${port}`;
      // Generous: fault cases start instances side by side on a busy machine.
      await waitForOk(`${base}/health`, 120_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${api!.tail()}`);
      });
      return new FaultRig(env, sink, api, base, extraEnv);
    } catch (error) {
      // The suite's clean-up never sees a rig that did not start: leave nothing behind here.
      await api?.killWithChildren();
      await env.dispose().catch(() => undefined);
      await sink.close();
      throw error;
    }
  }

  /** A new worker process (`dist/worker.js`), with `env` added to the rig's. */
  startWorker(env: Record<string, string> = {}): HeraldProcess {
    const worker = HeraldProcess.start(
      'worker',
      `worker-${++this.workerSeq}`,
      processEnv(this.env, { ...this.extraEnv, LOG_LEVEL: 'warn', ...env }),
    );
    this.workers.push(worker);
    return worker;
  }

  /**
   * A process of `npm start`'s shape (the API with workers embedded) on its own port, waited
   * for until it answers; it sends like any worker.
   */
  async startAllInOne(): Promise<{ process: HeraldProcess; base: string }> {
    const port = await freePort();
    const process = HeraldProcess.start(
      'all',
      `all-in-one-${++this.workerSeq}`,
      processEnv(this.env, { ...this.extraEnv, PORT: String(port), LOG_LEVEL: 'warn' }),
    );
    this.workers.push(process);
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`).catch((error: Error) => {
      throw new Error(`${error.message}\n${process.tail()}`);
    });
    return { process, base };
  }

  /** Processes that ended without being told to. */
  crashed(): HeraldProcess[] {
    return [this.api, ...this.workers].filter((process) => process.crashed);
  }

  /** Every process's last lines, for a failure message. */
  logs(): string {
    return [this.api, ...this.workers].map((process) => process.tail()).join('\n');
  }

  /** An account and a key with every scope, made with the operator CLI. */
  async tenant(name: string): Promise<Tenant> {
    const account = await cli(this.env, ['accounts', 'create', '--name', name]);
    const { id: accountId } = JSON.parse(account.stdout) as { id: string };
    const created = await cli(this.env, [
      'keys',
      'create',
      '--account',
      accountId,
      '--name',
      'faults',
      '--scopes',
      SCOPES.join(','),
    ]);
    const { key } = JSON.parse(created.stdout) as { key: string };
    return { accountId, auth: `Bearer ${key}` };
  }

  /**
   * `count` subscribers `reader<n>@<domain>`, written straight to the table; their addresses.
   * Each has a note (custom field `note`) of 0 to `noteBytes` bytes, varied over the audience,
   * for templates whose messages should differ in size.
   */
  async audience(
    accountId: string,
    count: number,
    domain: string,
    noteBytes = 0,
  ): Promise<string[]> {
    const emails = Array.from({ length: count }, (_, n) => `reader${n}@${domain}`);
    await this.env.sql(
      `INSERT INTO subscribers (id, account_id, email, email_normalized, first_name, custom_fields)
       SELECT u.id, $1::uuid, u.email, u.email, 'Person',
              jsonb_build_object('note', repeat('lorem ', (u.n::int * 7919 % ($4::int + 1)) / 6))
         FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS u(id, email, n)`,
      [accountId, emails.map(() => randomUUID()), emails, noteBytes],
    );
    return emails;
  }

  /**
   * A sender domain of the tenant's, verified and with its DKIM key active, as if its DNS
   * records had been found: every message from it is signed with that key.
   */
  async verifiedDomain(tenant: Tenant, name: string): Promise<void> {
    const created = await this.request<{ id: string }>(tenant, 'POST', '/v1/domains', { name });
    if (created.status !== 201) throw new Error(`domain: ${JSON.stringify(created)}`);
    await this.env.sql(
      `UPDATE sender_domains SET status = 'verified', verified_at = now() WHERE id = $1`,
      [created.body.id],
    );
    await this.env.sql(
      `UPDATE sender_domain_keys SET status = 'active', activated_at = now() WHERE domain_id = $1`,
      [created.body.id],
    );
  }

  /**
   * Triggers in this instance's database through which a test makes outcome writes (a row
   * leaving 'sending', campaign or transactional) fail (failOutcomeWrites) or wait
   * (holdOutcomeWrites); claims are left alone.
   */
  async installOutcomeFaults(): Promise<void> {
    await this.env.sql(`
      CREATE TABLE test_outcome_faults (failing boolean NOT NULL);
      INSERT INTO test_outcome_faults VALUES (false);
      CREATE FUNCTION test_outcome_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${HOLD_LOCK});
        IF (SELECT failing FROM test_outcome_faults) THEN
          RAISE EXCEPTION 'outcome writes refused by the test';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_campaign_outcome BEFORE UPDATE ON campaign_recipients FOR EACH ROW
        WHEN (OLD.status = 'sending' AND NEW.status <> 'sending')
        EXECUTE FUNCTION test_outcome_fault();
      CREATE TRIGGER test_transactional_outcome BEFORE UPDATE ON transactional_messages
        FOR EACH ROW WHEN (OLD.status = 'sending' AND NEW.status <> 'sending')
        EXECUTE FUNCTION test_outcome_fault();`);
  }

  /** Every outcome write fails (a non-transient error) until called with false. */
  async failOutcomeWrites(failing: boolean): Promise<void> {
    await this.env.sql('UPDATE test_outcome_faults SET failing = $1', [failing]);
  }

  /** Outcome writes wait until the returned release is called. */
  async holdOutcomeWrites(): Promise<() => Promise<void>> {
    const holder = new Client({ connectionString: this.env.config.databaseUrl });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [HOLD_LOCK]);
    let released: Promise<void> | undefined;
    return () => (released ??= holder.end());
  }

  async request<T = Record<string, unknown>>(
    tenant: Tenant,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; ms: number }> {
    const started = Date.now();
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        Authorization: tenant.auth,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const json = (await response.json()) as T;
    return { status: response.status, body: json, ms: Date.now() - started };
  }

  /** Creates a campaign to the whole account and starts it; its id. */
  async sendCampaign(
    tenant: Tenant,
    name: string,
    content: { from?: string; html?: string } = {},
  ): Promise<string> {
    const created = await this.request<{ id: string }>(tenant, 'POST', '/v1/campaigns', {
      name,
      subject: `${name} for {{first_name}}`,
      from: content.from ?? 'news@acme.test',
      ...(content.html === undefined ? { text: 'Hello' } : { html: content.html }),
    });
    if (created.status !== 201) throw new Error(`campaign: ${JSON.stringify(created)}`);
    const sent = await this.request(tenant, 'POST', `/v1/campaigns/${created.body.id}/send`);
    if (sent.status !== 202) throw new Error(`send: ${JSON.stringify(sent)}`);
    return created.body.id;
  }

  async stats(tenant: Tenant, campaignId: string): Promise<CampaignStats> {
    const answer = await this.request<CampaignStats>(
      tenant,
      'GET',
      `/v1/campaigns/${campaignId}/stats`,
    );
    if (answer.status !== 200) throw new Error(`stats: ${JSON.stringify(answer)}`);
    return answer.body;
  }

  /**
   * Waits until the campaign reads `sent` by itself (nobody but Herald acts on it), checking
   * on every read that no recipient was failed meanwhile; its final stats. API errors while a
   * store is away are retried: this waits on Herald, it does not test the API.
   */
  async waitUntilSent(tenant: Tenant, campaignId: string, timeoutMs: number) {
    let last: CampaignStats | string | undefined;
    return waitFor(
      async () => {
        try {
          last = await this.stats(tenant, campaignId);
        } catch (error) {
          last = String(error);
          return undefined;
        }
        if (last.failed > 0) {
          const rows = await this.env.sql(
            `SELECT status, smtp_code, fail_reason, attempts, count(*)::int AS n
               FROM campaign_recipients WHERE campaign_id = $1 AND status = 'failed'
              GROUP BY 1, 2, 3, 4`,
            [campaignId],
          );
          throw new Error(
            `recipients failed: ${JSON.stringify(rows)}\n${JSON.stringify(last)}\n${this.logs()}`,
          );
        }
        return last.status === 'sent' ? last : undefined;
      },
      {
        timeoutMs,
        intervalMs: 250,
        message: () => `campaign not sent: ${JSON.stringify(last)}\n${this.logs()}`,
      },
    );
  }

  async dispose(): Promise<void> {
    await Promise.all([this.api, ...this.workers].map((process) => process.killWithChildren()));
    await this.env.dispose().catch(() => undefined);
    await this.sink.close();
  }
}
