import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { CountDraftDto } from './count-draft.dto';
import { OPERATORS_BY_TYPE, SUBSCRIBER_FIELDS } from './segment-fields';
import { SegmentsService } from './segments.service';

/** What only the dashboard's rule builder needs; everything else is SegmentsController. */
@ApiExcludeController()
@Controller('dashboard/api/segments')
export class SegmentsDashboardController {
  constructor(private readonly segments: SegmentsService) {}

  /** What the rule builder offers: each filterable field and the operators its type takes. */
  @Get('fields')
  fields() {
    const data = [...SUBSCRIBER_FIELDS].map(([field, { type }]) => ({
      field,
      type,
      operators: OPERATORS_BY_TYPE[type],
    }));
    return { data, custom: { prefix: 'custom_fields.', operators: OPERATORS_BY_TYPE.custom } };
  }

  /** The live count: how many subscribers an unsaved filter matches now. */
  @Post('count')
  @HttpCode(200)
  count(@Caller() caller: Principal, @Body() body: CountDraftDto) {
    return this.segments.countDraft(caller, body.filter);
  }
}
