import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The two HTTP surfaces of the same domain controllers: the public API, for API keys, and
 * the dashboard's API, for signed-in people. A route's prefix decides which credential it
 * takes (see RouteGuard).
 */
export type Surface = 'api' | 'dashboard';

export const API_PREFIX = '/v1/';
export const DASHBOARD_API_PREFIX = '/dashboard/api/';

/** The surface of a route as the router spells it (`/v1/subscribers/:id`), if any. */
export function surfaceOf(routePath: string): Surface | undefined {
  if (routePath.startsWith(API_PREFIX)) return 'api';
  if (routePath.startsWith(DASHBOARD_API_PREFIX)) return 'dashboard';
  return undefined;
}

/**
 * Injects the surface a request came through, for the rare handler whose surfaces differ
 * (the dashboard searches the subscriber list; /v1 lists it in order).
 */
export const CalledVia = createParamDecorator((_: unknown, context: ExecutionContext): Surface => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const surface = surfaceOf(request.routeOptions.url ?? '');
  if (!surface) throw new Error('CalledVia used on a route outside /v1 and /dashboard/api');
  return surface;
});
