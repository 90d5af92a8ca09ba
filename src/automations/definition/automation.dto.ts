import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsDefined, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { ResourceName, ResourceRename } from '../../platform/validation/resource-name.decorator';

const TRIGGER_DOC = {
  type: 'object',
  additionalProperties: true,
  description:
    '`{"type": "subscriber_created"}`, `{"type": "segment_entered", "segment_id"}`, ' +
    '`{"type": "event", "name"}`, `{"type": "date", "field": "birthdate" | "custom_fields.<key>", ' +
    '"offset_days"?: -30..30, "at"?: "HH:MM"}` (yearly, in the subscriber\'s time zone; 29 February ' +
    'falls on 28 February in other years) or `{"type": "manual"}`; any may add `"filter"` (segment rules).',
  example: { type: 'subscriber_created' },
} as const;

const STEPS_DOC = {
  type: 'array',
  items: { type: 'object', additionalProperties: true },
  description:
    '1-50 steps, each with a unique `id`: `{"type":"send","template_id","subject"?,"from"?,"next"?}`, ' +
    '`{"type":"wait","seconds","next"?}`, `{"type":"condition","if":{"opened"|"clicked": step_id} | ' +
    '{"filter": rules},"then","else"}` (step ids or null) and `{"type":"exit"}`. A run goes to the next ' +
    'step in the array unless the step names another.',
  example: [
    { id: 'welcome', type: 'send', template_id: '0190c2d4-…' },
    { id: 'pause', type: 'wait', seconds: 86400 },
    { id: 'tips', type: 'send', template_id: '0190c2d5-…' },
  ],
} as const;

export class CreateAutomationDto {
  @ResourceName('Welcome series')
  name!: string;

  // Checked by checkTrigger and checkSteps, which report problems at their paths.
  @ApiProperty(TRIGGER_DOC)
  @IsDefined()
  @Allow()
  trigger!: unknown;

  @ApiProperty(STEPS_DOC)
  @IsDefined()
  @Allow()
  steps!: unknown;

  @ApiPropertyOptional({ enum: ['never', 'after_exit', 'always'], default: 'never' })
  @Allow()
  reentry?: unknown;
}

export class UpdateAutomationDto {
  @ResourceRename()
  name?: string;

  @ApiPropertyOptional(TRIGGER_DOC)
  @Allow()
  trigger?: unknown;

  @ApiPropertyOptional(STEPS_DOC)
  @Allow()
  steps?: unknown;

  @ApiPropertyOptional({ enum: ['never', 'after_exit', 'always'] })
  @Allow()
  reentry?: unknown;
}

export class EnrolDto {
  @ApiProperty()
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  subscriber_id!: string;
}
