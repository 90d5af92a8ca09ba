import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../platform/errors/api-errors';
import { FeedbackService } from '../feedback/feedback.service';
import { RecipientTokens } from './recipient-token';

/**
 * The target of every campaign message's List-Unsubscribe link, outside /v1 and without an
 * API key (the signed token is the credential). POST unsubscribes at once: RFC 8058
 * one-click, sent by mailbox providers with the body `List-Unsubscribe=One-Click`, and the
 * button of the page below. GET only shows that page, because link scanners and previews
 * fetch URLs in mail and must not unsubscribe anyone.
 */
@ApiExcludeController()
@Controller('unsubscribe')
export class UnsubscribeController {
  constructor(
    private readonly tokens: RecipientTokens,
    private readonly feedback: FeedbackService,
  ) {}

  @Get(':token')
  async confirm(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    if (!this.tokens.verify('unsubscribe', token)) {
      await page(
        reply,
        404,
        'This link is not valid',
        '<p>The unsubscribe link is incomplete or has been changed.</p>',
      );
      return;
    }
    await page(
      reply,
      200,
      'Unsubscribe',
      `<p>Stop receiving these emails?</p>
<form method="post" action=""><button type="submit" name="List-Unsubscribe" value="One-Click">Unsubscribe</button></form>`,
    );
  }

  @Post(':token')
  @HttpCode(200)
  async unsubscribe(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const ref = this.tokens.verify('unsubscribe', token);
    if (!ref) throw new NotFoundError('unsubscribe link');
    await this.feedback.unsubscribeViaLink(ref);
    await page(
      reply,
      200,
      'Unsubscribed',
      '<p>You have been unsubscribed. You will not receive these emails any more.</p>',
    );
  }
}

async function page(reply: FastifyReply, status: number, title: string, body: string) {
  await reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem"><h1>${title}</h1>${body}</body></html>`,
    );
}
