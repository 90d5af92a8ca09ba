import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator';
import { NotFoundError } from '../platform/errors/api-errors';
import { OptOutLinks } from './opt-out-links';
import { escapeHtml, INVALID_LINK, postButton, sendPage } from './subscription-page';

/**
 * The target of every campaign message's List-Unsubscribe link and footer link, outside /v1
 * and without an API key (the signed token is the credential). POST unsubscribes at once:
 * RFC 8058 one-click, sent by mailbox providers with the body `List-Unsubscribe=One-Click`,
 * and the button of the page below. GET only shows that page, naming the sender, because
 * link scanners and previews fetch URLs in mail and must not unsubscribe anyone.
 */
@ApiExcludeController()
@Public()
@Controller('unsubscribe')
export class UnsubscribeController {
  constructor(private readonly links: OptOutLinks) {}

  @Get(':token')
  async confirm(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const ref = this.links.recipientOf(token);
    const subscription = ref && (await this.links.subscription(ref));
    if (!ref || !subscription) return sendPage(reply, 404, INVALID_LINK.title, INVALID_LINK.body);
    const sender = await this.links.senderName(ref);
    const manage = `<p><a href="/preferences/${escapeHtml(token)}">Manage your subscription</a></p>`;
    if (subscription.status !== 'subscribed' || subscription.suppressed) {
      return sendPage(
        reply,
        200,
        'Unsubscribe',
        `<p>You do not receive emails from <strong>${sender}</strong> at this address.</p>${manage}`,
      );
    }
    await sendPage(
      reply,
      200,
      'Unsubscribe',
      `<p>Stop receiving emails from <strong>${sender}</strong>?</p>` +
        postButton('', 'Unsubscribe', ['List-Unsubscribe', 'One-Click']) +
        manage,
    );
  }

  // The RFC 8058 one-click POST comes from mailbox providers on their users' behalf.
  @Public({ perAddressLimit: 'mailAgents' })
  @Post(':token')
  @HttpCode(200)
  async unsubscribe(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const ref = this.links.recipientOf(token);
    if (!ref) throw new NotFoundError('unsubscribe link');
    await this.links.unsubscribe(ref);
    await sendPage(reply, 200, 'Unsubscribed', await this.links.unsubscribedBody(ref, token));
  }
}
