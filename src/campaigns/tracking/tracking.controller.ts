import { Controller, Get, Headers, Logger, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../auth/public.decorator';
import { NotFoundError } from '../../platform/errors/api-errors';
import { locationOf } from './click-tracking';
import { RecipientActivityService } from './recipient-activity.service';
import { RecipientRef, RecipientTokens } from '../../message-refs/recipient-token';

// A transparent 1×1 GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * Open and click tracking behind PUBLIC_URL, outside /v1: the open pixel and
 * the redirect of every tracked link. A click URL carries the target and a signature over
 * token and target, so Herald cannot be used as an open redirect. Recording never stands in
 * the way of the reader: the pixel and the redirect are answered even if the write fails.
 */
@ApiExcludeController()
// Image proxies and link scanners fetch for many recipients from few addresses.
@Public({ perAddressLimit: 'mailAgents' })
@Controller('t')
export class TrackingController {
  private readonly logger = new Logger(TrackingController.name);

  constructor(
    private readonly tokens: RecipientTokens,
    private readonly activity: RecipientActivityService,
  ) {}

  @Get('open/:token')
  async open(
    @Param('token') token: string,
    @Headers('user-agent') userAgent: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const ref = this.campaignRef(token);
    await this.activity
      .recordOpen(ref, { userAgent })
      .catch((error: unknown) => this.failed('open', error));
    await reply
      .header('content-type', 'image/gif')
      .header('cache-control', 'no-store, max-age=0')
      .send(PIXEL);
  }

  @Get('click/:token')
  async click(
    @Param('token') token: string,
    @Query('u') target: unknown,
    @Query('s') signature: unknown,
    @Headers('user-agent') userAgent: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const ref = this.campaignRef(token);
    if (
      typeof target !== 'string' ||
      typeof signature !== 'string' ||
      !/^https?:\/\//i.test(target) ||
      !this.tokens.verifyValue(token, target, signature)
    ) {
      throw new NotFoundError('link');
    }
    const location = locationOf(target);
    if (!location) throw new NotFoundError('link');
    await this.activity
      .recordClick(ref, target, { userAgent })
      .catch((error: unknown) => this.failed('click', error));
    await reply.header('cache-control', 'no-store').redirect(location, 302);
  }

  private campaignRef(token: string): RecipientRef & { campaignId: string } {
    const ref = this.tokens.verify('track', token);
    if (!ref?.campaignId) throw new NotFoundError('link');
    return { ...ref, campaignId: ref.campaignId };
  }

  private failed(what: string, error: unknown): void {
    this.logger.error(`recording a ${what} failed: ${String(error)}`);
  }
}
