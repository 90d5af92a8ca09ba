import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';

/**
 * Opens a route outside /v1 and /dashboard/api to everyone: health, tracking links,
 * unsubscribe pages, the dashboard's HTML. Those two prefixes always take their own
 * credential, with or without this mark; any other route without it is refused.
 */
export const Public = () => SetMetadata(IS_PUBLIC, true);
