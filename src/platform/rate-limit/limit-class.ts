/**
 * Which budget a request draws on. Sends get their own, tighter one (RATE_LIMIT_SEND), so a
 * client cannot flood the queue at the general rate, and reads never starve sends.
 */
export type LimitClass = 'general' | 'send';

const SEND_ROUTES: ReadonlySet<string> = new Set([
  'POST /v1/transactional/send',
  'POST /v1/campaigns/:id/send',
]);

/** `route` as the router spells it (`:id` parameters), like ROUTE_SCOPES. */
export function limitClassOf(method: string, route: string): LimitClass {
  return SEND_ROUTES.has(`${method.toUpperCase()} ${route}`) ? 'send' : 'general';
}
