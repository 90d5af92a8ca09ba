/**
 * Which budget a request draws on. Sends get their own, tighter one (RATE_LIMIT_SEND), so a
 * client cannot flood the queue at the general rate, and reads never starve sends. Requests
 * nobody is signed in for are counted per client address on a third budget
 * (RATE_LIMIT_ANONYMOUS).
 */
export type LimitClass = 'general' | 'send' | 'anonymous';

const SEND_ROUTES: ReadonlySet<string> = new Set([
  'POST /v1/transactional/send',
  'POST /v1/campaigns/:id/send',
  // Mail leaves at once, to addresses of the caller's choosing.
  'POST /v1/campaigns/:id/test',
]);

/** `route` as the router spells it (`:id` parameters), like ROUTE_SCOPES. */
export function limitClassOf(method: string, route: string): LimitClass {
  return SEND_ROUTES.has(`${method.toUpperCase()} ${route}`) ? 'send' : 'general';
}
