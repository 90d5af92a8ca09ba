import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../auth/public.decorator';

/**
 * `/` leads to the dashboard: someone who types the server's address into a browser gets the
 * sign-in page rather than a JSON 404. Temporary (302), so the address stays free for
 * anything an operator puts in front of Herald later.
 */
@ApiExcludeController()
@Public()
@Controller()
export class RootController {
  @Get()
  async root(@Res() reply: FastifyReply): Promise<void> {
    await reply.header('cache-control', 'no-cache').redirect('/dashboard', 302);
  }
}
