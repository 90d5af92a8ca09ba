import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsDefined } from 'class-validator';
import { ResourceName, ResourceRename } from '../platform/validation/resource-name.decorator';

const FILTER_DOC = {
  type: 'object',
  additionalProperties: true,
  description:
    '`{}` matches every subscriber. A condition is `{"field", "op", "value"}`, e.g. ' +
    '`{"field": "country_code", "op": "eq", "value": "GB"}`; groups are `{"and": [...]}` and ' +
    '`{"or": [...]}` (at most 5 deep, 100 conditions). Fields: the subscriber fields and ' +
    '`custom_fields.<key>`. Ops: eq, neq, in, not_in (text and custom fields); contains, ' +
    'not_contains, in, not_in (tags, interests); before, after (dates); exists, not_exists.',
  example: {
    and: [
      { field: 'tags', op: 'contains', value: 'vip' },
      { field: 'country_code', op: 'in', value: ['GB', 'IE'] },
    ],
  },
} as const;

export class CreateSegmentDto {
  @ResourceName('VIPs in the UK and Ireland')
  name!: string;

  // Checked by parseSegmentFilter, which reports problems at their path inside the filter.
  @ApiProperty(FILTER_DOC)
  @IsDefined()
  @Allow()
  filter!: unknown;
}

export class UpdateSegmentDto {
  @ResourceRename()
  name?: string;

  @ApiPropertyOptional(FILTER_DOC)
  @Allow()
  filter?: unknown;
}
