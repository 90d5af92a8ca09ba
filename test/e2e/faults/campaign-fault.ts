import { CampaignStats, FaultRig, Tenant } from '../../support/fault-rig';

/** Recipients of each fault's campaign: a few thousand keeps the suite fast on CI. */
export const AUDIENCE = 2000;
/** Faults strike when this share of the audience has been delivered. */
const STRIKE_AT = 0.25;

export interface FaultRun {
  tenant: Tenant;
  campaignId: string;
  emails: string[];
  stats: CampaignStats;
  /** From the send call to the first read of `sent`. */
  msToSent: number;
  /** Recipients never accepted by the sink. */
  lost: number;
  /** Copies beyond the first, over all recipients. */
  duplicates: number;
  /** Messages of this campaign the sink accepted after `sent` was first read. */
  afterSent: number;
  /**
   * The longest Herald stood still after the fault: no message accepted and the campaign not
   * yet `sent` (gaps between messages, and from the last message to the read of `sent`).
   */
  longestStandstillMs: number;
}

/**
 * Sends a campaign to AUDIENCE fresh subscribers (their own domain, so the sink's counts of
 * this run are its own) and calls `strike` synchronously when the sink has accepted a quarter
 * of them, while messages are still in flight. `recover`, started right after, undoes the
 * fault (or not) while the test waits for `sent`; `settle` runs once `sent` was read (e.g. to
 * stop a thawed process and let its last sends land) before the sink is counted.
 */
export async function campaignUnderFault(
  rig: FaultRig,
  label: string,
  fault: {
    strike: () => void;
    recover?: (run: { tenant: Tenant; campaignId: string }) => Promise<void>;
    settle?: () => Promise<void>;
    sentWithinMs?: number;
  },
): Promise<FaultRun> {
  const tenant = await rig.tenant(label);
  const domain = `${label}.test`;
  const emails = await rig.audience(tenant.accountId, AUDIENCE, domain);
  const ofThisRun = () => rig.sink.messages.filter((m) => m.to[0]?.endsWith(`@${domain}`)).length;

  let struck: () => void = () => undefined;
  const strikeHappened = new Promise<void>((resolve) => (struck = resolve));
  let struckAt = 0;
  rig.sink.whenReceived(rig.sink.messages.length + AUDIENCE * STRIKE_AT, () => {
    struckAt = Date.now();
    fault.strike();
    struck();
  });
  const started = Date.now();
  const campaignId = await rig.sendCampaign(tenant, label);
  await strikeHappened;
  const recovered = fault.recover?.({ tenant, campaignId });
  const stats = await rig.waitUntilSent(tenant, campaignId, fault.sentWithinMs ?? 120_000);
  const sentReadAt = Date.now();
  const msToSent = sentReadAt - started;
  const times = rig.sink.messages
    .filter((m) => m.to[0]?.endsWith(`@${domain}`))
    .map((m) => m.receivedAt);
  const atSent = ofThisRun();
  await recovered;
  await fault.settle?.();

  const lost = rig.sink.missing(emails).length;
  const duplicates = emails.reduce(
    (extra, email) => extra + Math.max(0, rig.sink.countOf(email) - 1),
    0,
  );
  const run = {
    tenant,
    campaignId,
    emails,
    stats,
    msToSent,
    lost,
    duplicates,
    afterSent: ofThisRun() - atSent,
    longestStandstillMs: longestGap([...times.filter((t) => t >= struckAt), sentReadAt]),
  };
  console.log(
    `${label}: lost ${lost}, duplicates ${duplicates} (${rig.sink.duplicates().length} addresses), ` +
      `sent after ${msToSent} ms, ${run.afterSent} accepted after sent, longest standstill ` +
      `${run.longestStandstillMs} ms; stats ${JSON.stringify(pick(stats))}`,
  );
  return run;
}

/** The figures every fault test asserts on, whatever the fault. */
export function expectWhole(run: FaultRun, maxDuplicates: number): void {
  expect(run.lost).toBe(0);
  expect(run.duplicates).toBeLessThanOrEqual(maxDuplicates);
  expect(pick(run.stats)).toEqual({
    status: 'sent',
    recipients: AUDIENCE,
    delivered: AUDIENCE,
    failed: 0,
    outstanding: 0,
  });
  expect(run.stats.delivered + run.stats.failed + run.stats.outstanding).toBe(run.stats.recipients);
}

function longestGap(times: number[]): number {
  let longest = 0;
  for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i] - times[i - 1]);
  return longest;
}

function pick(stats: CampaignStats) {
  const { status, recipients, delivered, failed, outstanding } = stats;
  return { status, recipients, delivered, failed, outstanding };
}

/**
 * How long a fault lasts: its definition (a process frozen for 40 s, a server down for 20 s),
 * not a wait for Herald, which the tests do on conditions only.
 */
export function faultLasting(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
