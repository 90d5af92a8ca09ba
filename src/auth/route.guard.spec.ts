import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { NotFoundError } from '../platform/errors/api-errors';
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
}

/** Records which half of the guard a request was handed to. */
function guard() {
  const calls: string[] = [];
  const apiKeys = { canActivate: () => (calls.push('api key'), Promise.resolve(true)) };
  const sessions = { canActivate: () => (calls.push('session'), Promise.resolve(true)) };
  const routeGuard = new RouteGuard(apiKeys as unknown as ApiKeyGuard, sessions, new Reflector());
  return { routeGuard, calls };
}

function context(url: string, handler: keyof Routes = 'unmarked') {
  const request = { method: 'GET', routeOptions: { url } };
  return {
    switchToHttp: () => ({ getRequest: () => request }),
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

  it('hands /dashboard/api routes to the session check', async () => {
    const { routeGuard, calls } = guard();
    await routeGuard.canActivate(context('/dashboard/api/subscribers'));
    await routeGuard.canActivate(context('/dashboard/api/session', 'marked'));
    expect(calls).toEqual(['session', 'session']);
  });

  it('opens other routes only when they are marked @Public()', () => {
    const { routeGuard, calls } = guard();
    expect(routeGuard.canActivate(context('/health', 'marked'))).toBe(true);
    expect(routeGuard.canActivate(context('/dashboard/*', 'marked'))).toBe(true);
    expect(() => routeGuard.canActivate(context('/health'))).toThrow(NotFoundError);
    // Neither prefix by a near miss: "/v1x" and "/dashboard/apix" are ordinary routes.
    expect(() => routeGuard.canActivate(context('/v1x/anything'))).toThrow(NotFoundError);
    expect(() => routeGuard.canActivate(context('/dashboard/apix'))).toThrow(NotFoundError);
    expect(calls).toEqual([]);
  });
});
