/**
 * Which budget a request draws on. Sends get their own, tighter one (RATE_LIMIT_SEND), so a
 * client cannot flood the queue at the general rate, and reads never starve sends. Requests
 * nobody is signed in for are counted per client address: people's (sign-in, public pages)
 * on RATE_LIMIT_ANONYMOUS, mail infrastructure's (tracking, one-click unsubscribe, provider
 * webhooks, sent from few addresses for many recipients) on the larger RATE_LIMIT_MAIL_AGENTS.
 */
export type LimitClass = 'general' | 'send' | 'anonymous' | 'mailAgents';

/** The budgets counted per client address rather than per key or person. */
export type AddressLimitClass = Extract<LimitClass, 'anonymous' | 'mailAgents'>;

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
