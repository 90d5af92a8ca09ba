import type { Campaign, CampaignStatus } from '../../generated/prisma/client';
import type { HeraldConfig } from '../../platform/config/config';
import { accountIdOfRow } from '../../platform/database/account-id';
import { CampaignHalts } from '../core/campaign-halts';
import type { CampaignsRepository } from '../core/campaigns.repository';
import { CampaignDeliveryGates } from './campaign-delivery-gate';
import type { DeliveryLease } from './delivery-lease';
import type { SendRateLimiter } from './send-rate-limiter';

const ACCOUNT = accountIdOfRow('00000000-0000-0000-0000-00000000000a');
const CAMPAIGN = { id: 'c1', ratePerMinute: null } as Campaign;

/** A delivery lease as far as a gate uses it. */
class LeaseProbe {
  halted = false;
  halt(): void {
    this.halted = true;
  }
  get wasHalted(): boolean {
    return this.halted;
  }
  whenReleased(): void {}
}

/**
 * A gate on an unthrottled campaign whose status in the database is `status`; `reads` counts
 * the gate's status reads.
 */
function openGate(status: CampaignStatus) {
  const halts = new CampaignHalts();
  const campaigns = { reads: 0, statusOf: () => (campaigns.reads++, Promise.resolve(status)) };
  const gates = new CampaignDeliveryGates(
    { sendRatePerMinute: undefined } as HeraldConfig,
    campaigns as unknown as CampaignsRepository,
    {} as SendRateLimiter,
    halts,
  );
  const lease = new LeaseProbe();
  const gate = gates.open(ACCOUNT, CAMPAIGN, lease as unknown as DeliveryLease);
  return { gate, lease, halts, campaigns };
}

describe('CampaignDeliveryGates', () => {
  it('claims nothing for a campaign paused between its job reading it and the run registering for halts', async () => {
    const { gate, lease } = openGate('paused');
    expect(await gate.admit(10)).toBe(0);
    expect(lease.halted).toBe(true);
  });

  it('reads the status once on the first claim, then within the check interval only', async () => {
    const { gate, campaigns } = openGate('sending');
    expect(await gate.admit(10)).toBe(10);
    expect(await gate.admit(10)).toBe(10);
    expect(campaigns.reads).toBe(1);
  });

  it('halts at once when the campaign is paused in this process after the run registered', async () => {
    const { gate, lease, halts } = openGate('sending');
    expect(await gate.admit(10)).toBe(10);
    halts.halt(CAMPAIGN.id);
    expect(lease.halted).toBe(true);
    expect(await gate.admit(10)).toBe(0);
  });
});
