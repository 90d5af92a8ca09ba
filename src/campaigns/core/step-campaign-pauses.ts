import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';

/** Why the reputation guard paused a campaign. */
export type GuardReason = 'complaint_rate' | 'bounce_rate';

/** The reputation guard paused a step campaign of this automation, for this reason. */
export interface GuardPause {
  accountId: AccountId;
  automationId: string;
  reason: GuardReason;
}

/** Who answers for the hidden campaigns behind automation send steps: the automations. */
export interface StepCampaignOwner {
  /**
   * Heard inside the pause's transaction: a failure here undoes the pause, which the guard
   * then judges again.
   */
  guardPaused(pause: GuardPause, tx: Db): Promise<void>;
}

/**
 * Where the campaigns hand a step campaign's pause to the automations, which own it (they
 * depend on the campaigns, not the other way round): the automations register on start.
 * A step campaign is nobody's to resume on the campaigns API, so a pause the automation does
 * not hear of would hold its mail for good; a pause with nobody registered therefore fails
 * (and is judged again) rather than happen unheard.
 */
@Injectable()
export class StepCampaignPauses {
  private owner: StepCampaignOwner | undefined;

  register(owner: StepCampaignOwner): void {
    this.owner = owner;
  }

  async guardPaused(pause: GuardPause, tx: Db): Promise<void> {
    if (!this.owner) throw new Error('no owner of automation step campaigns is registered');
    await this.owner.guardPaused(pause, tx);
  }
}
