import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { NotFoundError } from '../platform/errors/api-errors';
import type { RateLimiter } from '../platform/rate-limit/rate-limiter.service';
import type { ApiKeyGuard } from './api-key.guard';
import { Public } from './public.decorator';
import { RouteGuard } from './route.guard';

@Controller()
class Routes {
  @Get()
  unmarked() {}

  @Public()
  @Get()
  marked() {}

  @Public({ perAddressLimit: false })
  @Get()
  unlimited() {}
}

/** Records which half of the guard a request was handed to. */
function guard() {
  const calls: string[] = [];
  const apiKeys = { canActivate: () => (calls.push('api key'), Promise.resolve(true)) };
  const sessions = { canActivate: () => (calls.push('session'), Promise.resolve(true)) };
  const limiter = {
    enforceForUser: (_account: string, user: string) => (
      calls.push(`limit user ${user}`),
      Promise.resolve()
    ),
    enforceForAddress: (address: string) => (calls.push(`limit ${address}`), Promise.resolve()),
  };
  const routeGuard = new RouteGuard(
    apiKeys as unknown as ApiKeyGuard,
    sessions,
    new Reflector(),
    limiter as unknown as RateLimiter,
  );
  return { routeGuard, calls };
}

function context(url: string, handler: keyof Routes = 'unmarked', userId?: string) {
  const request = {
    method: 'GET',
    ip: '192.0.2.7',
    routeOptions: { url },
    principal: userId ? { accountId: 'acct', userId, scopes: [] } : undefined,
  };
  return {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }),
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
  } as unknown as ExecutionContext;
}

describe('RouteGuard', () => {
  it('hands /v1 routes to the API key check, even when marked public', async () => {
    const { routeGuard, calls } = guard();
    await routeGuard.canActivate(context('/v1/subscribers/:id'));
    await routeGuard.canActivate(context('/v1/subscribers', 'marked'));
    expect(calls).toEqual(['api key', 'api key']);
  });

  it('hands /dashboard/api routes to the session check, then counts the person or address', async () => {
    const { routeGuard, calls } = guard();
    await routeGuard.canActivate(context('/dashboard/api/subscribers', 'unmarked', 'user-1'));
    await routeGuard.canActivate(context('/dashboard/api/session', 'marked'));
    expect(calls).toEqual(['session', 'limit user user-1', 'session', 'limit 192.0.2.7']);
  });

  it('opens other routes only when they are marked @Public(), counted by address unless exempt', async () => {
    const { routeGuard, calls } = guard();
    await expect(routeGuard.canActivate(context('/health', 'marked'))).resolves.toBe(true);
    await expect(routeGuard.canActivate(context('/t/open/:token', 'unlimited'))).resolves.toBe(
      true,
    );
    await expect(routeGuard.canActivate(context('/health'))).rejects.toThrow(NotFoundError);
    // Neither prefix by a near miss: "/v1x" and "/dashboard/apix" are ordinary routes.
    await expect(routeGuard.canActivate(context('/v1x/anything'))).rejects.toThrow(NotFoundError);
    await expect(routeGuard.canActivate(context('/dashboard/apix'))).rejects.toThrow(NotFoundError);
    expect(calls).toEqual(['limit 192.0.2.7']);
  });
});
