import { Injectable } from '@nestjs/common';

/**
 * The delivery runs of this process, by campaign, that a pause stops at once: the one that
 * paused it (a person through this process, or the reputation guard) halts them without
 * waiting for their next status read. Runs in other processes read the status within
 * SEND_STATUS_CHECK_MS and halt themselves the same way (CampaignDeliveryGates).
 */
@Injectable()
export class CampaignHalts {
  private readonly runs = new Map<string, Set<() => void>>();

  /** A run of the campaign that halts when told; the returned function unregisters it. */
  register(campaignId: string, halt: () => void): () => void {
    let halts = this.runs.get(campaignId);
    if (!halts) {
      halts = new Set();
      this.runs.set(campaignId, halts);
    }
    halts.add(halt);
    return () => {
      halts.delete(halt);
      if (halts.size === 0 && this.runs.get(campaignId) === halts) this.runs.delete(campaignId);
    };
  }

  /** The campaign was paused: every run of it in this process halts now. */
  halt(campaignId: string): void {
    for (const halt of this.runs.get(campaignId) ?? []) halt();
  }
}
