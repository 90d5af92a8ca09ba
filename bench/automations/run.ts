// `npm run bench:automations`: N automation runs due at once (a paused automation holding N
// runs at a send step, then activated) drain through Herald into an smtp-server sink on
// loopback, against a campaign to the same N subscribers measured in the same run, with the
// same workers, sink, content and verified sender domain (the campaign bench's rig). Like with
// like: both go through the same ledger and delivery; what the automation adds is the engine
// (claiming due runs, walking their steps, writing their ledger rows).
//
// Printed: the campaign's rate (from the 202 to the last message), the automation's (from the
// activation to the last message), their ratio (target ≥ 0.9), the time from the activation to
// the first message (target ≤ 5 s), and duplicates and losses at the sink for both.
//
// Env (optional): BENCH_SIZE (100000), BENCH_WORKERS (1), BENCH_POOL (8), BENCH_STALL_SECONDS
// (60), PG_SERVER, REDIS_URL. Steps: build → throwaway database → migrate → sink, API and
// workers → account, seed → campaign → automation → table → clean up.

import { newIds } from '../../src/platform/crypto/ids';
import { BenchHarness } from '../support/harness';
import { withClient } from '../support/stores';
import {
  api,
  createAccount,
  createCampaign,
  SENDER_DOMAIN,
  seed,
  sendCampaign,
  Sink,
  startApi,
  startWorkers,
  waitForSink,
} from '../campaign-send/rig';

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const POOL = Number(process.env.BENCH_POOL ?? 8);
const STALL_MS = Number(process.env.BENCH_STALL_SECONDS ?? 60) * 1000;

const bench = new BenchHarness({ LOG_LEVEL: 'warn' }, 600_000);

bench.main(async () => {
  console.log(`automations bench: ${SIZE} runs due at once, ${WORKERS} worker(s), pool ${POOL}`);
  await bench.build();
  await bench.migrate();
  const sink = await Sink.start(bench);
  const { server, base } = await startApi(bench);
  const account = await createAccount(
    bench,
    'Bench',
    'campaigns:read,campaigns:write,campaigns:send,stats:read,domains:read,templates:write,automations:read,automations:write',
  );
  await seed(bench.env.DATABASE_URL, account.id, SIZE);
  const workers = await startWorkers(bench, WORKERS, sink.url(POOL));
  const rig = { sink, base, apiPid: server.child.pid, databaseUrl: bench.env.DATABASE_URL };

  // The baseline: a campaign to the same audience, through the same workers.
  const campaignId = await createCampaign(base, account.key, 'Baseline');
  const campaign = await sendCampaign(rig, account, campaignId, SIZE, workers, {
    stallMs: STALL_MS,
  });

  // The automation: its content is the campaign's, as a template.
  const campaignRow = await api(base, account.key, 'GET', `/v1/campaigns/${campaignId}`);
  const template = await api(base, account.key, 'POST', '/v1/templates', {
    name: 'Bench',
    subject: campaignRow.subject,
    html: campaignRow.html,
    text: campaignRow.text,
  });
  const automation = await api(base, account.key, 'POST', '/v1/automations', {
    name: 'Bench',
    trigger: { type: 'manual' },
    steps: [
      {
        id: 'news',
        type: 'send',
        template_id: template.id,
        from: `Acme News <news@${SENDER_DOMAIN}>`,
      },
    ],
  });
  const automationId = automation.id as string;
  // N runs waiting at the send step of a paused automation, due already: what a pause over
  // their wait leaves behind. Written directly: enrolling N people is not what is measured.
  await api(base, account.key, 'POST', `/v1/automations/${automationId}/activate`);
  await api(base, account.key, 'POST', `/v1/automations/${automationId}/pause`);
  await withClient(bench.env.DATABASE_URL, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      'SELECT id::text FROM subscribers WHERE account_id = $1 ORDER BY id',
      [account.id],
    );
    for (let offset = 0; offset < rows.length; offset += 20_000) {
      const slice = rows.slice(offset, offset + 20_000).map((r) => r.id);
      await db.query(
        `INSERT INTO automation_runs (id, account_id, automation_id, subscriber_id, trigger_key,
                                      status, current_step_id, next_step_at)
         SELECT r.id, $1, $2, r.subscriber_id, 'bench', 'waiting', 'news', now() - interval '1 minute'
           FROM unnest($3::uuid[], $4::uuid[]) AS r(id, subscriber_id)`,
        [account.id, automationId, newIds(slice.length), slice],
      );
    }
    await db.query('ANALYZE automation_runs');
  });

  await sink.reset();
  await api(base, account.key, 'POST', `/v1/automations/${automationId}/activate`);
  const activatedAt = Date.now();
  const stats = await waitForSink(sink, SIZE, {
    what: `automation ${automationId}`,
    stallMs: STALL_MS,
    limitMs: Math.max(300_000, SIZE * 20),
    databaseUrl: bench.env.DATABASE_URL,
  });
  const automationRate = SIZE / ((stats.lastAt - activatedAt) / 1000);
  const firstMs = stats.firstAt - activatedAt;
  const final = await sink.stats();
  const ratio = automationRate / campaign.messagesPerSec;

  console.log(
    [
      '',
      `campaign:   ${campaign.messagesPerSec.toFixed(0)} msg/s, first message ${campaign.firstMessageMs} ms after the 202, ` +
        `${campaign.duplicates} duplicates, ${campaign.lost} lost`,
      `automation: ${automationRate.toFixed(0)} msg/s, first message ${firstMs} ms after the activation, ` +
        `${final.count - final.distinct} duplicates, ${SIZE - final.distinct} lost`,
      `ratio automation/campaign: ${ratio.toFixed(2)} (target ≥ 0.90); first due step: ` +
        `${(firstMs / 1000).toFixed(2)} s (target ≤ 5 s)`,
    ].join('\n'),
  );
  if (ratio < 0.9 || firstMs > 5000 || final.count !== final.distinct || final.distinct !== SIZE) {
    process.exitCode = 1;
  }
});
