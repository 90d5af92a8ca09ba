import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ListQuery } from '../../platform/pagination/page-request';
import { CreateSegmentDto, UpdateSegmentDto } from '../../segments/segment.dto';
import { OPERATORS_BY_TYPE, SUBSCRIBER_FIELDS } from '../../segments/segment-fields';
import { parseSegmentFilter } from '../../segments/segment-filter';
import { SegmentsRepository } from '../../segments/segments.repository';
import { SegmentsService } from '../../segments/segments.service';
import { SessionGuard } from '../sessions/session.guard';
import { actingAs, DashboardUser, SignedIn } from '../sessions/signed-in';
import { CountDraftDto } from './content.dto';

/** Segments in the dashboard: the segments module's service, plus the rule builder's needs. */
@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api/segments')
export class DashboardSegmentsController {
  constructor(
    private readonly segments: SegmentsService,
    private readonly repository: SegmentsRepository,
  ) {}

  @Get()
  list(@SignedIn() user: DashboardUser, @Query() query: ListQuery) {
    return this.segments.list(actingAs(user), query);
  }

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
  async count(@SignedIn() user: DashboardUser, @Body() body: CountDraftDto) {
    const filter = parseSegmentFilter(body.filter);
    return { count: await this.repository.countMatching(user.accountId, filter) };
  }

  @Get(':id')
  get(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.segments.get(actingAs(user), id);
  }

  @Post()
  create(@SignedIn() user: DashboardUser, @Body() body: CreateSegmentDto) {
    return this.segments.create(actingAs(user), body);
  }

  @Patch(':id')
  update(@SignedIn() user: DashboardUser, @Param('id') id: string, @Body() body: UpdateSegmentDto) {
    return this.segments.update(actingAs(user), id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.segments.delete(actingAs(user), id);
  }
}
