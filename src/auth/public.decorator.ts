import { SetMetadata } from '@nestjs/common';
import type { AddressLimitClass } from '../platform/rate-limit/limit-class';

export const IS_PUBLIC = 'auth:public';

/**
 * Opens a route outside /v1 and /dashboard/api to everyone: health, tracking links,
 * unsubscribe pages, the dashboard's HTML. Those two prefixes always take their own
 * credential, with or without this mark; any other route without it is refused.
 */
export const Public = (options: Partial<PublicOptions> = {}) =>
  SetMetadata(IS_PUBLIC, { perAddressLimit: 'anonymous', ...options } satisfies PublicOptions);

export interface PublicOptions {
  /**
   * Which per-client-address budget requests count against: `anonymous` (RATE_LIMIT_ANONYMOUS,
   * the default) for pages people open; `mailAgents` (RATE_LIMIT_MAIL_AGENTS, larger) where the
   * callers are other people's mail infrastructure (a mailbox provider fetches tracking pixels
   * and posts one-click unsubscribes for many recipients from few addresses, a provider posts
   * every bounce from a few); `false` only for monitors (/health).
   */
  perAddressLimit: AddressLimitClass | false;
}
