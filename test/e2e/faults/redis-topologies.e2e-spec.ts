import pLimit from 'p-limit';
import { FaultRig, Tenant } from '../../support/fault-rig';
import { ThrowawayRedisCluster } from '../../support/throwaway-redis-cluster';
import { ThrowawaySentinelGroup } from '../../support/throwaway-sentinel';
import { waitFor } from '../../support/wait-for';
import { CASE_TIMEOUT_MS, expectWhole, perWorker, runFaultCase, slugOf } from './campaign-fault';

/** A campaign that cannot be all in flight at once: 16 delivery batches for 8 job slots. */
const RECIPIENTS = 4_000;
/** Work resumes within this long of Redis being reachable again. */
const RESUME_WITHIN_MS = 60_000;
/** How long the batches held at a Sentinel failover may take to send (a hang's limit). */
const HELD_BATCHES_WITHIN_MS = 300_000;
/** Transactional messages sent in a burst while the campaign is sending… */
const BURST = 100;
/** …by a client with this many requests open at a time. */
const BURST_CONCURRENCY = 8;

/**
 * Herald on the Redis deployments production runs, started for real on free
 * ports: a Sentinel group whose primary is killed mid-campaign, and a three-node Cluster.
 * Each runs the fault tests' campaign (an `--api-only` API, two worker processes, a real SMTP
 * sink counting what every recipient got) and asserts the same: nobody missed, no copy beyond
 * the bound, the campaign finishes by itself, no process crashed.
 */
describe('Redis behind Sentinel and as a Cluster', () => {
  // Side by side, as the other fault files run their cases: each has its own servers.
  it.concurrent(
    'Sentinel: the primary killed mid-campaign, the replica promoted: nothing lost, work resumes',
    async () => {
      let group!: ThrowawaySentinelGroup;
      let promoted: Promise<number> = Promise.resolve(0);
      let heldBeforeKill: number[] = [];
      let slotFreeAfterMs = -1;
      let resumedAfterMs = -1;
      const run = await runFaultCase({
        name: 'Redis primary killed, Sentinel promotes the replica, at 25 %',
        at: 0.25,
        audience: RECIPIENTS,
        // What was in flight may go out again: a message per SMTP connection of each worker.
        bound: perWorker(2),
        stores: { redis: async () => (group = await ThrowawaySentinelGroup.start()) },
        strike: async ({ rig, campaignId }) => {
          const old = await group.killPrimary();
          promoted = group.promotedAfter(old);
          // No batch can be taken while no primary answers: these are the ones taken before.
          heldBeforeKill = await batchesTaken(rig, campaignId);
        },
        recover: async ({ rig, campaignId }) => {
          await promoted;
          const promotedAt = Date.now();
          // A worker can take a new batch once one of its job slots is free: when a batch held
          // at the kill has nothing left to send (its job then completes), or at the promotion
          // if that came later. How long the held batches take is the relay's and the
          // machine's pace, not Redis's; from then on, resuming is the workers' part.
          await waitFor(
            async () => (await batchesWithNothingToSend(rig, campaignId, heldBeforeKill)) > 0,
            {
              timeoutMs: HELD_BATCHES_WITHIN_MS,
              intervalMs: 100,
              message: () => `the batches held at the kill never ended\n${rig.logs()}`,
            },
          );
          const slotFreeAt = Date.now();
          slotFreeAfterMs = slotFreeAt - promotedAt;
          // A delivery job taken from the new primary starts a batch nobody held before.
          await waitFor(
            async () => {
              const taken = await batchesTaken(rig, campaignId);
              return taken.some((batch) => !heldBeforeKill.includes(batch));
            },
            {
              timeoutMs: RESUME_WITHIN_MS,
              intervalMs: 100,
              message: () =>
                `no new batch taken ${RESUME_WITHIN_MS} ms after a job slot freed ` +
                `(${slotFreeAfterMs} ms after the promotion)\n${rig.logs()}`,
            },
          );
          resumedAfterMs = Date.now() - slotFreeAt;
        },
      });
      console.log(
        `sentinel failover: ${heldBeforeKill.length} batches held at the kill, ` +
          `a job slot free ${slotFreeAfterMs} ms after the promotion, ` +
          `a new batch taken ${resumedAfterMs} ms after that, ` +
          `${run.lost} lost, ${run.duplicates} duplicates, ` +
          `sent in ${(run.msToSent / 1000).toFixed(1)} s`,
      );
      expectWhole(run, perWorker(2));
      expect(resumedAfterMs).toBeGreaterThanOrEqual(0);
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'Cluster of three nodes: a campaign and a transactional burst, each message once',
    async () => {
      let cluster!: ThrowawayRedisCluster;
      let burst: Promise<{ to: string; id: string }[]> = Promise.resolve([]);
      let copies: number[] = [];
      let nodesWithKeys = 0;
      const name = 'Redis Cluster of three nodes, a transactional burst at 25 %';
      const from = `news@${slugOf({ name })}.example`;
      const run = await runFaultCase({
        name,
        at: 0.25,
        audience: RECIPIENTS,
        bound: 0,
        stores: { redis: async () => (cluster = await ThrowawayRedisCluster.start()) },
        strike: ({ rig, tenant }) => {
          burst = sendBurst(rig, tenant, from);
        },
        recover: async ({ rig, tenant }) => {
          const sent = await burst;
          await waitFor(async () => allSent(rig, tenant, sent), {
            timeoutMs: 120_000,
            intervalMs: 250,
            message: () => rig.logs(),
          });
          copies = sent.map(({ to }) => rig.sink.countOf(to));
        },
        settle: async () => {
          nodesWithKeys = await cluster.nodesWithKeys();
        },
      });
      expectWhole(run, 0);
      expect(copies).toEqual(Array.from({ length: BURST }, () => 1));
      // One hash tag for every key: they all live in one slot, on one node.
      expect(nodesWithKeys).toBe(1);
    },
    CASE_TIMEOUT_MS,
  );
});

/** The delivery batches of the campaign with a recipient no longer pending. */
async function batchesTaken(rig: FaultRig, campaignId: string): Promise<number[]> {
  const rows = await rig.env.sql<{ batch: number }>(
    `SELECT DISTINCT batch FROM campaign_recipients
      WHERE campaign_id = $1 AND status <> 'pending'`,
    [campaignId],
  );
  return rows.map((row) => row.batch);
}

/** How many of `batches` have no recipient left to send (none pending, none being sent). */
async function batchesWithNothingToSend(
  rig: FaultRig,
  campaignId: string,
  batches: number[],
): Promise<number> {
  const [{ done }] = await rig.env.sql<{ done: number }>(
    `SELECT count(*)::int AS done FROM (
       SELECT batch FROM campaign_recipients
        WHERE campaign_id = $1 AND batch = ANY($2::int[])
        GROUP BY batch
       HAVING count(*) FILTER (WHERE status IN ('pending', 'sending')) = 0) AS ended`,
    [campaignId, batches],
  );
  return done;
}

/**
 * BURST messages from a client with BURST_CONCURRENCY requests open at a time, as an
 * application's request pool sends them (a hundred at once would measure the API's PostgreSQL
 * pool under a busy machine, not Redis).
 */
async function sendBurst(rig: FaultRig, tenant: Tenant, from: string) {
  const recipients = Array.from({ length: BURST }, (_, n) => `receipt${n}@burst.test`);
  const limit = pLimit(BURST_CONCURRENCY);
  return Promise.all(
    recipients.map(async (to) =>
      limit(async () => {
        const accepted = await rig.request<{ id: string }>(
          tenant,
          'POST',
          '/v1/transactional/send',
          {
            to,
            from,
            subject: 'Your receipt',
            text: 'Thanks!',
          },
        );
        if (accepted.status !== 202) throw new Error(`send: ${JSON.stringify(accepted)}`);
        return { to, id: accepted.body.id };
      }),
    ),
  );
}

async function allSent(rig: FaultRig, tenant: Tenant, sent: { id: string }[]) {
  for (const { id } of sent) {
    const message = await rig.request<{ status: string }>(tenant, 'GET', `/v1/transactional/${id}`);
    if (message.body.status !== 'sent') return false;
  }
  return true;
}
