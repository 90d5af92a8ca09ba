import pLimit from 'p-limit';
import {
  CampaignStats,
  FaultRig,
  RedisPlace,
  RigOptions,
  SMTP_POOL,
  Tenant,
} from '../../support/fault-rig';
import { HeraldProcess } from '../../support/herald-process';
import { ThrowawayPostgres } from '../../support/throwaway-postgres';
import { ThrowawayRedis } from '../../support/throwaway-redis';

/** Recipients of each fault's campaign. */
export const AUDIENCE = Number(process.env.FAULT_AUDIENCE ?? 2_000);
/** When a fault strikes: the share of the audience the sink has accepted by then. */
export const EARLY = 0.1;
export const LATE = 0.75;
export const MIDWAY = 0.5;

/** The moment's word in a case's name. */
export function moment(at: number): string {
  return at === EARLY ? 'early' : at === LATE ? 'late' : `at ${Math.round(at * 100)} %`;
}
/**
 * Fault cases of one test file that run at once. Each is a whole Herald (an API, two or more
 * workers, a PostgreSQL server, a sink); with every case of two files at once (jest runs up to
 * five concurrent tests per file), a 2-core machine half as fast as usual ran a dozen of them
 * side by side, leases lapsed for want of CPU, and the campaigns crawled past their limit.
 * FAULT_CASES_AT_ONCE overrides it.
 */
const CASES_AT_ONCE = Number(process.env.FAULT_CASES_AT_ONCE ?? 2);

/**
 * Jest's time limit of a fault case. Cases of a file start together (it.concurrent) and their
 * clocks with them, while they wait their turn (CASES_AT_ONCE), so this bounds the whole file
 * on a busy machine: it catches a hang, it is not the suite's budget (a case's own hang is
 * caught sooner, by its wait for `sent`).
 */
export const CASE_TIMEOUT_MS = Math.max(2_400_000, AUDIENCE * 120);

/**
 * How long a case waits for `sent` after the fault: a hang's limit, which grows with the
 * audience (20,000 signed messages beside other cases on two cores take minutes).
 */
function sentWithinMs(): number {
  return Math.max(360_000, AUDIENCE * 30);
}

/**
 * Each message is signed (DKIM, the tenant's verified domain) and 8 to 20 KB: a fixed part,
 * and a note of 0 to NOTE_BYTES per recipient, each in an HTML and a text part.
 */
const NOTE_BYTES = 4_400;
const PARAGRAPH =
  '<p>Our spring range is in: linen shirts, canvas shoes and a dozen new colours of the ' +
  'socks you keep asking about. Members get free delivery on everything until the end of ' +
  'the month, and returns stay free for thirty days, as always.</p>\n';
const HTML = `<h1>Hello {{first_name}}</h1>\n${PARAGRAPH.repeat(16)}<p>{{custom_fields.note}}</p>`;

export interface FaultContext {
  rig: FaultRig;
  /** The workers started for the case, in order. */
  workers: HeraldProcess[];
  /** The case's own PostgreSQL server (to stop it). */
  postgres: ThrowawayPostgres;
  redis?: ThrowawayRedis;
  /** The case's own Redis deployment, when `stores.redis` made one (a Sentinel group, a Cluster). */
  place?: OwnRedis;
  tenant: Tenant;
  campaignId: string;
}

export interface FaultCase {
  /** Its line in the table: what happens, and when. */
  name: string;
  /** Share of the audience accepted when the fault strikes (EARLY, LATE). */
  at: number;
  /** Recipients of the campaign (default AUDIENCE). */
  audience?: number;
  /** Duplicates allowed: one message per SMTP connection of each worker killed or cut off. */
  bound: number;
  /**
   * The instance runs on a Redis of its own: a ThrowawayRedis (true, to crash it) or what the
   * function starts (a Sentinel group, a Cluster). It always has its own PostgreSQL.
   */
  stores?: { redis?: boolean | (() => Promise<OwnRedis>) };
  env?: RigOptions['env'];
  /** Outcome writes can be made to fail or to wait (FaultRig.installOutcomeFaults). */
  outcomeFaults?: boolean;
  /** Called at the moment; what it returns is awaited before `recover`. */
  strike: (context: FaultContext) => void | Promise<void>;
  /** Undoes the fault (or not) while the case waits for `sent`. */
  recover?: (context: FaultContext) => Promise<void>;
  /** Runs once `sent` was read (e.g. to stop a thawed worker) before the sink is counted. */
  settle?: (context: FaultContext) => Promise<void>;
  sentWithinMs?: number;
}

/** A Redis deployment a case starts for itself and throws away after. */
export type OwnRedis = RedisPlace & { dispose(): Promise<void> };

export interface FaultRun {
  /** Recipients of the campaign. */
  audience: number;
  stats: CampaignStats;
  /** From the send call to the first read of `sent`. */
  msToSent: number;
  /** Recipients never accepted by the sink. */
  lost: number;
  /** Copies beyond the first, over all recipients. */
  duplicates: number;
  /** Accepted messages without the tenant's DKIM signature. */
  unsigned: number;
  /** The smallest and largest message accepted, in bytes. */
  sizes: [number, number];
  /** Processes that ended without being told to, with their last lines. */
  crashed: string[];
}

/**
 * One fault against a whole Herald of its own (FaultRig: an `--api-only` API and two worker
 * processes, its own PostgreSQL server, its own Redis prefix or server, and its own SMTP
 * sink), so cases can run side by side: a campaign to AUDIENCE subscribers, the fault struck
 * synchronously when the sink has accepted `at` of them, while messages are in flight. Prints
 * the case's line of the fault table, and leaves nothing behind.
 */
export function runFaultCase(fault: FaultCase): Promise<FaultRun> {
  return cases(() => runOwnInstance(fault));
}

async function runOwnInstance(fault: FaultCase): Promise<FaultRun> {
  // A PostgreSQL server per case, whether its fault stops it or not: a dozen instances side by
  // side open more connections than the shared server allows (other test files need it too).
  const ownRedis = fault.stores?.redis;
  const [postgres, redis, place] = await Promise.all([
    ThrowawayPostgres.start(),
    ownRedis === true ? ThrowawayRedis.start() : undefined,
    typeof ownRedis === 'function' ? ownRedis() : undefined,
  ]);
  let rig: FaultRig | undefined;
  try {
    const started = await FaultRig.start({ postgres, redis: redis ?? place, env: fault.env });
    rig = started;
    if (fault.outcomeFaults) await started.installOutcomeFaults();
    const workers = [started.startWorker(), started.startWorker()];
    const tenant = await started.tenant(slugOf(fault));
    await started.verifiedDomain(tenant, `${slugOf(fault)}.example`);
    const emails = await started.audience(
      tenant.accountId,
      fault.audience ?? AUDIENCE,
      `${slugOf(fault)}.test`,
      NOTE_BYTES,
    );
    const context = { rig: started, workers, postgres, redis, place, tenant };
    return await strikeDuringSend(started, fault, context, emails);
  } finally {
    await rig?.dispose();
    await Promise.all([postgres?.dispose(), redis?.dispose(), place?.dispose()]);
  }
}

async function strikeDuringSend(
  rig: FaultRig,
  fault: FaultCase,
  context: Omit<FaultContext, 'campaignId'>,
  emails: string[],
): Promise<FaultRun> {
  const { tenant } = context;
  const slug = slugOf(fault);
  const audience = emails.length;
  let campaignId = '';
  let striking: Promise<void> | undefined;
  let struck: () => void = () => undefined;
  const strikeHappened = new Promise<void>((resolve) => (struck = resolve));
  rig.sink.whenReceived(Math.round(audience * fault.at), () => {
    striking = Promise.resolve(fault.strike({ ...context, campaignId }));
    struck();
  });
  const started = Date.now();
  campaignId = await rig.sendCampaign(tenant, slug, { from: `news@${slug}.example`, html: HTML });
  await strikeHappened;
  await striking;
  const recovered = fault.recover?.({ ...context, campaignId });
  const stats = await rig.waitUntilSent(tenant, campaignId, fault.sentWithinMs ?? sentWithinMs());
  const msToSent = Date.now() - started;
  await recovered;
  await fault.settle?.({ ...context, campaignId });

  const messages = rig.sink.messages;
  const sizes = messages.map((message) => message.size);
  const run: FaultRun = {
    audience,
    stats,
    msToSent,
    lost: rig.sink.missing(emails).length,
    duplicates: emails.reduce(
      (extra, email) => extra + Math.max(0, rig.sink.countOf(email) - 1),
      0,
    ),
    unsigned: messages.filter(
      (message) => !(message.headers['dkim-signature'] ?? '').includes(`d=${slug}.example;`),
    ).length,
    sizes: [Math.min(...sizes), Math.max(...sizes)],
    crashed: rig.crashed().map((process) => process.tail()),
  };
  console.log(
    `| ${fault.name} | ${run.lost} | ${run.duplicates} (${fault.bound}) | ` +
      `${(msToSent / 1000).toFixed(1)} s |\n` +
      `${fault.name}: ${audience} recipients, messages ${run.sizes[0]}-${run.sizes[1]} bytes, ` +
      `${run.unsigned} unsigned, stats ${JSON.stringify(pick(stats))}`,
  );
  return run;
}

/** What every fault case asserts, whatever the fault. */
export function expectWhole(run: FaultRun, bound: number): void {
  expect(run.lost).toBe(0);
  expect(run.duplicates).toBeLessThanOrEqual(bound);
  expect(run.unsigned).toBe(0);
  expect(pick(run.stats)).toEqual({
    status: 'sent',
    recipients: run.audience,
    delivered: run.audience,
    failed: 0,
    outstanding: 0,
  });
  expect(run.crashed).toEqual([]);
}

/** Runs a case and asserts on it: the body of each fault test. */
export async function faultCase(fault: FaultCase): Promise<void> {
  expectWhole(await runFaultCase(fault), fault.bound);
}

/** The cases of this test file running now (CASES_AT_ONCE). */
const cases = pLimit(CASES_AT_ONCE);

/** The case's name as a DNS label: its domains' names. */
export function slugOf(fault: Pick<FaultCase, 'name'>): string {
  return fault.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 50);
}

function pick(stats: CampaignStats) {
  const { status, recipients, delivered, failed, outstanding } = stats;
  return { status, recipients, delivered, failed, outstanding };
}

/** The duplicates allowed when `workers` workers die or are cut off with messages in flight. */
export function perWorker(workers: number): number {
  return workers * SMTP_POOL;
}

/**
 * How long a fault lasts: its definition (a process frozen for 40 s, a server down for 20 s),
 * not a wait for Herald, which the tests do on conditions only.
 */
export function faultLasting(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
