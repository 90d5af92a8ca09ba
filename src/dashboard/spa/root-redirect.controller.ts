import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../auth/public.decorator';

/**
 * `/` sends people to the dashboard: someone who opens the server's address in a browser
 * finds the sign-in page rather than a 404.
 */
@ApiExcludeController()
@Public()
@Controller()
export class RootRedirectController {
  @Get()
  root(@Res() reply: FastifyReply): void {
    void reply.redirect('/dashboard', 302);
  }
}
