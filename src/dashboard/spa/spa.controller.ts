import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../auth/public.decorator';
import { DASHBOARD_API_PREFIX } from '../../auth/surface';
import { ApiError, NotFoundError } from '../../platform/errors/api-errors';
import { CONTENT_SECURITY_POLICY, findWebRoot, readIndexHtml } from './web-assets';

/**
 * The single-page app: every /dashboard URL that is not an asset or an API route gets the
 * same index.html, and the client-side router draws the page. Public: the page itself holds
 * no data; everything it shows comes from the session-guarded API.
 */
@ApiExcludeController()
@Public()
@Controller('dashboard')
export class SpaController {
  private readonly indexHtml = readIndexHtml(findWebRoot());

  @Get()
  root(@Res() reply: FastifyReply): Promise<void> {
    return this.page(reply);
  }

  @Get('*')
  deep(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (request.url.startsWith(DASHBOARD_API_PREFIX)) throw new NotFoundError('route');
    return this.page(reply);
  }

  private async page(reply: FastifyReply): Promise<void> {
    if (!this.indexHtml) {
      throw new ApiError(500, 'The dashboard has not been built: run `npm run build`.');
    }
    await reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .send(this.indexHtml);
  }
}
