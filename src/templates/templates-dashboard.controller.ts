import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { RenderDraftDto } from './render-draft.dto';
import { TemplatesService } from './templates.service';

/** What only the dashboard's editor needs; everything else is TemplatesController. */
@ApiExcludeController()
@Controller('dashboard/api/templates')
export class TemplatesDashboardController {
  constructor(private readonly templates: TemplatesService) {}

  /** The live preview: renders what the editor holds now, saved or not. */
  @Post('render')
  @HttpCode(200)
  render(@Caller() caller: Principal, @Body() body: RenderDraftDto) {
    return this.templates.renderDraft(caller, body);
  }
}
