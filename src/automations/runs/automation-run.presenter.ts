import { ApiProperty } from '@nestjs/swagger';
import type { RunWithSteps } from './automation-runs.repository';

export class RunStepResponse {
  @ApiProperty() step_id!: string;
  @ApiProperty({ enum: ['send', 'wait', 'condition', 'exit'] }) type!: string;
  @ApiProperty({ enum: ['done', 'skipped', 'failed'] }) status!: string;
  @ApiProperty() at!: string;
  @ApiProperty({
    required: false,
    description: 'The Message-ID of the mail a send step queued.',
  })
  message_id?: string;
}

export class AutomationRunResponse {
  @ApiProperty() id!: string;
  @ApiProperty() automation_id!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null once the person was erased.' })
  subscriber_id!: string | null;
  @ApiProperty({ enum: ['waiting', 'completed', 'exited', 'cancelled', 'failed'] })
  status!: string;
  @ApiProperty({ type: String, nullable: true }) current_step_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) next_step_at!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'unsubscribed, bounced, complained, suppressed, erased, step_removed, exit_step or template_missing',
  })
  exit_reason!: string | null;
  @ApiProperty({ type: [RunStepResponse] }) steps!: RunStepResponse[];
  @ApiProperty() started_at!: string;
  @ApiProperty({ type: String, nullable: true }) ended_at!: string | null;
}

export class AutomationRunPage {
  @ApiProperty({ type: [AutomationRunResponse] }) data!: AutomationRunResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export function presentRun(row: RunWithSteps): AutomationRunResponse {
  return {
    id: row.id,
    automation_id: row.automationId,
    subscriber_id: row.subscriberId,
    status: row.status,
    current_step_id: row.currentStepId,
    next_step_at: row.status === 'waiting' ? (row.nextStepAt?.toISOString() ?? null) : null,
    exit_reason: row.exitReason,
    steps: row.steps.map((step) => ({
      step_id: step.stepId,
      type: step.type,
      status: step.status,
      at: step.at.toISOString(),
      ...(step.messageId ? { message_id: step.messageId } : {}),
    })),
    started_at: row.startedAt.toISOString(),
    ended_at: row.endedAt?.toISOString() ?? null,
  };
}
