import type { Campaign } from '../../generated/prisma/client';
import type { ReputationGuardConfig } from '../../platform/config/deliverability-config';

/** Hard bounces and complaints over delivered messages, as the reputation guard counts them. */
export interface ReputationCounts {
  delivered: number;
  hard_bounces: number;
  complaints: number;
  bounce_rate: number;
  complaint_rate: number;
}

/** A campaign's rates beside the limits: what the dashboard explains a guard's pause with. */
export interface CampaignReputation extends ReputationCounts {
  id: string;
  name: string;
  status: string;
  paused_reason: 'complaint_rate' | 'bounce_rate' | null;
  started_at: string | null;
  /**
   * What the guard judges: the counts since the campaign last resumed (the same as the totals
   * for a campaign never resumed), since a resume restarts its judgement.
   */
  judged: ReputationCounts;
}

export interface ReputationLimits {
  complaint_rate: number;
  bounce_rate: number;
  min_delivered: number;
}

export function presentLimits(guard: ReputationGuardConfig): ReputationLimits {
  return {
    complaint_rate: guard.complaintRateLimit,
    bounce_rate: guard.bounceRateLimit,
    min_delivered: guard.minDelivered,
  };
}

/** `row` with its counters as they stand (runs not folded yet included). */
export function presentReputation(row: Campaign): CampaignReputation {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    paused_reason: row.status === 'paused' ? row.pausedReason : null,
    started_at: row.startedAt?.toISOString() ?? null,
    ...counts(row.deliveredCount, row.bounceCount, row.complaintCount),
    judged: counts(
      row.deliveredCount - row.guardSinceDelivered,
      row.bounceCount - row.guardSinceBounces,
      row.complaintCount - row.guardSinceComplaints,
    ),
  };
}

function counts(delivered: number, hardBounces: number, complaints: number): ReputationCounts {
  return {
    delivered,
    hard_bounces: hardBounces,
    complaints,
    bounce_rate: delivered === 0 ? 0 : hardBounces / delivered,
    complaint_rate: delivered === 0 ? 0 : complaints / delivered,
  };
}
