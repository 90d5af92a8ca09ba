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
import { ValidationFailedError } from '../../platform/errors/api-errors';
import { SubscribersRepository } from '../../subscribers/subscribers.repository';
import { CreateTemplateDto, UpdateTemplateDto } from '../../templates/template.dto';
import { compileMessage, subscriberVariables } from '../../templates/template-renderer';
import { TemplatesService } from '../../templates/templates.service';
import { SessionGuard } from '../sessions/session.guard';
import { actingAs, DashboardUser, SignedIn } from '../sessions/signed-in';
import { RenderDraftDto } from './content.dto';

/** Templates in the dashboard: the templates module's service, plus a preview of drafts. */
@ApiExcludeController()
@UseGuards(SessionGuard)
@Controller('dashboard/api/templates')
export class DashboardTemplatesController {
  constructor(
    private readonly templates: TemplatesService,
    private readonly subscribers: SubscribersRepository,
  ) {}

  @Get()
  list(@SignedIn() user: DashboardUser, @Query() query: ListQuery) {
    return this.templates.list(actingAs(user), query);
  }

  /**
   * Renders what the editor holds now, saved or not, with the same renderer campaigns use,
   * so the preview is what subscribers will get.
   */
  @Post('render')
  @HttpCode(200)
  async render(@SignedIn() user: DashboardUser, @Body() body: RenderDraftDto) {
    let variables: Record<string, unknown> = {};
    if (body.subscriber_id) {
      const subscriber = await this.subscribers.findById(user.accountId, body.subscriber_id);
      if (!subscriber) {
        throw new ValidationFailedError([
          { field: 'subscriber_id', code: 'not_found', message: 'No such subscriber.' },
        ]);
      }
      variables = subscriberVariables(subscriber);
    }
    const message = compileMessage({
      subject: body.subject,
      html: body.html || null,
      text: body.text || null,
    });
    return message.render({ ...variables, ...body.data });
  }

  @Get(':id')
  get(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.templates.get(actingAs(user), id);
  }

  @Post()
  create(@SignedIn() user: DashboardUser, @Body() body: CreateTemplateDto) {
    return this.templates.create(actingAs(user), body);
  }

  @Patch(':id')
  update(
    @SignedIn() user: DashboardUser,
    @Param('id') id: string,
    @Body() body: UpdateTemplateDto,
  ) {
    return this.templates.update(actingAs(user), id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@SignedIn() user: DashboardUser, @Param('id') id: string) {
    return this.templates.delete(actingAs(user), id);
  }
}
