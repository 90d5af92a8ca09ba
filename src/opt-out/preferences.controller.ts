import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RecipientRef } from '../message-refs/recipient-token';
import { escapeHtml, INVALID_LINK, postButton, sendPage } from './subscription-page';
import { Public } from '../auth/public.decorator';
import { OptOutLinks } from './opt-out-links';

/**
 * `{{preferences_url}}`: where a person sees whether they receive an account's mail and
 * changes it: unsubscribe, or subscribe again after their own unsubscribe or complaint. The
 * token is the unsubscribe link's; GET changes nothing, a POST with `action` acts.
 */
@ApiExcludeController()
@Public()
@Controller('preferences')
export class PreferencesController {
  constructor(private readonly links: OptOutLinks) {}

  @Get(':token')
  async show(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const ref = this.links.recipientOf(token);
    if (!ref) return sendPage(reply, 404, INVALID_LINK.title, INVALID_LINK.body);
    await this.page(reply, ref, token);
  }

  @Post(':token')
  @HttpCode(200)
  async change(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const ref = this.links.recipientOf(token);
    if (!ref) return sendPage(reply, 404, INVALID_LINK.title, INVALID_LINK.body);
    const action = formField(request.body, 'action');
    if (action === 'unsubscribe') {
      await this.links.unsubscribe(ref);
      return sendPage(reply, 200, 'Unsubscribed', await this.links.unsubscribedBody(ref, token));
    }
    if (action === 'subscribe' && (await this.links.resubscribe(ref))) {
      const sender = await this.links.senderName(ref);
      return sendPage(
        reply,
        200,
        'Subscribed again',
        `<p>Welcome back: you will receive emails from <strong>${sender}</strong> again.</p>` +
          `<p><a href="/preferences/${escapeHtml(token)}">Manage your subscription</a></p>`,
      );
    }
    await this.page(reply, ref, token);
  }

  private async page(reply: FastifyReply, ref: RecipientRef, token: string): Promise<void> {
    const subscription = await this.links.subscription(ref);
    if (!subscription) return sendPage(reply, 404, INVALID_LINK.title, INVALID_LINK.body);
    const sender = await this.links.senderName(ref);
    const here = `/preferences/${token}`;
    if (subscription.status === 'subscribed' && !subscription.suppressed) {
      return sendPage(
        reply,
        200,
        'Your subscription',
        `<p>You receive emails from <strong>${sender}</strong> at this address.</p>` +
          postButton(here, 'Unsubscribe', ['action', 'unsubscribe']),
      );
    }
    if (subscription.canResubscribe) {
      return sendPage(
        reply,
        200,
        'Your subscription',
        `<p>You do not receive emails from <strong>${sender}</strong> at this address.</p>` +
          postButton(here, 'Subscribe again', ['action', 'subscribe']),
      );
    }
    await sendPage(
      reply,
      200,
      'Your subscription',
      `<p>Emails from <strong>${sender}</strong> are not sent to this address, because earlier ones could not be delivered or the sender stopped them. Contact <strong>${sender}</strong> to receive them again.</p>`,
    );
  }
}

/**
 * A field of the page's form post. Outside /v1 and /dashboard/api bodies arrive as text, so
 * the form (application/x-www-form-urlencoded) is read here; anything else has no fields.
 */
function formField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'string') return undefined;
  return new URLSearchParams(body).get(name) ?? undefined;
}
