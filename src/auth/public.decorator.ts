import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';

/**
 * Opens a route outside /v1 and /dashboard/api to everyone: health, tracking links,
 * unsubscribe pages, the dashboard's HTML. Those two prefixes always take their own
 * credential, with or without this mark; any other route without it is refused.
 */
export const Public = (options: Partial<PublicOptions> = {}) =>
  SetMetadata(IS_PUBLIC, { perAddressLimit: true, ...options } satisfies PublicOptions);

export interface PublicOptions {
  /**
   * Count requests against the client address's rate limit (RATE_LIMIT_ANONYMOUS). Off only
   * where the callers are other people's mail infrastructure or monitors: a mailbox provider
   * fetches tracking pixels and posts one-click unsubscribes for many recipients from few
   * addresses, and refusing those would lose opens and opt-outs.
   */
  perAddressLimit: boolean;
}
