import { ApiProperty } from '@nestjs/swagger';
import type { GuardReason } from '../../campaigns/core/step-campaign-pauses';
import { Automation } from '../../generated/prisma/client';

export class AutomationResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['draft', 'active', 'paused'] }) status!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) trigger!: unknown;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  steps!: unknown[];
  @ApiProperty({ enum: ['never', 'after_exit', 'always'] }) reentry!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
  @ApiProperty({ type: String, nullable: true }) activated_at!: string | null;
  @ApiProperty({
    enum: ['complaint_rate', 'bounce_rate'],
    nullable: true,
    description:
      'Why a paused automation paused itself: one of its send steps passed COMPLAINT_RATE_LIMIT or BOUNCE_RATE_LIMIT. Null when a person paused it, and whenever it is not paused; activating it resumes its send steps.',
  })
  paused_reason!: GuardReason | null;
}

export class AutomationPage {
  @ApiProperty({ type: [AutomationResponse] }) data!: AutomationResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export class AutomationStepStats {
  @ApiProperty() step_id!: string;
  @ApiProperty() entered!: number;
  @ApiProperty() sent!: number;
  @ApiProperty() delivered!: number;
  @ApiProperty() opens!: number;
  @ApiProperty() unique_opens!: number;
  @ApiProperty() clicks!: number;
  @ApiProperty() unique_clicks!: number;
}

export class AutomationStatsResponse {
  @ApiProperty() entered!: number;
  @ApiProperty() waiting!: number;
  @ApiProperty() completed!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Runs that exited, by exit_reason.',
  })
  exited!: Record<string, number>;
  @ApiProperty({ type: [AutomationStepStats] }) steps!: AutomationStepStats[];
}

export function presentAutomation(row: Automation): AutomationResponse {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    trigger: row.trigger,
    steps: row.steps as unknown[],
    reentry: row.reentry,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    activated_at: row.activatedAt?.toISOString() ?? null,
    paused_reason: row.status === 'paused' ? row.pausedReason : null,
  };
}
