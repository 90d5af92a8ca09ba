import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { SCOPES } from '../../src/auth/scopes';
import { HeraldProcess } from './herald-process';
import { cli, freePort, processEnv, ROOT, waitForOk } from './processes';
import { SmtpSink } from './smtp-sink';
import { TestEnv } from './test-env';
import { ThrowawayPostgres } from './throwaway-postgres';
import { ThrowawayPgBouncer } from './throwaway-pgbouncer';
import { ThrowawayRedis } from './throwaway-redis';
import { waitFor } from './wait-for';

const run = promisify(execFile);

/** SMTP connections per worker process in fault tests: the bound on a killed worker's duplicates. */
export const SMTP_POOL = 8;

export interface RigOptions {
  /** Run the whole instance on a PostgreSQL server of its own (to stop it). */
  postgres?: ThrowawayPostgres;
  /** …or on a Redis of its own (to crash it). */
  redis?: ThrowawayRedis;
  /** Extra environment of every Herald process (e.g. SMTP_RETRY_*). */
  env?: Record<string, string>;
  /**
   * Every Herald process reaches PostgreSQL through this PgBouncer (DATABASE_POOLER=pgbouncer),
   * with DATABASE_DIRECT_URL straight to the server, migrations included.
   */
  pgbouncer?: ThrowawayPgBouncer;
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
    const sink = await SmtpSink.start({ keepBodies: false });
    const env = await TestEnv.create(
      {},
      {
        databaseServer: options.postgres?.serverUrl,
        redisUrl: options.redis?.url,
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
    // The way an operator migrates: the compiled migrator, against this instance's database.
    await run(process.execPath, ['dist/platform/database/migrate-main.js'], {
      cwd: ROOT,
      env: processEnv(env, bouncerEnv),
    });
    const port = await freePort();
    const api = HeraldProcess.start(
      'api',
      'api',
      processEnv(env, { ...extraEnv, PORT: String(port), LOG_LEVEL: 'warn' }),
    );
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`).catch((error: Error) => {
      throw new Error(`${error.message}\n${api.tail()}`);
    });
    return new FaultRig(env, sink, api, base, extraEnv);
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

  /** `count` subscribers `reader<n>@<domain>`, written straight to the table; their addresses. */
  async audience(accountId: string, count: number, domain: string): Promise<string[]> {
    const emails = Array.from({ length: count }, (_, n) => `reader${n}@${domain}`);
    await this.env.sql(
      `INSERT INTO subscribers (id, account_id, email, email_normalized, first_name)
       SELECT u.id, $1::uuid, u.email, u.email, 'Person'
         FROM unnest($2::uuid[], $3::text[]) AS u(id, email)`,
      [accountId, emails.map(() => randomUUID()), emails],
    );
    return emails;
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
  async sendCampaign(tenant: Tenant, name: string): Promise<string> {
    const created = await this.request<{ id: string }>(tenant, 'POST', '/v1/campaigns', {
      name,
      subject: `${name} for {{first_name}}`,
      from: 'news@acme.test',
      text: 'Hello',
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
    await Promise.all([this.api, ...this.workers].map((process) => process.kill()));
    await this.env.dispose().catch(() => undefined);
    await this.sink.close();
  }
}
