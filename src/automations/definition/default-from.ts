import type { HeraldConfig } from '../../platform/config/config';

/**
 * The From of a send step that names none. Herald's templates carry no From, so the step's
 * default is the installation's own address: `noreply@` the PUBLIC_URL host.
 */
export function defaultFrom(config: HeraldConfig): string {
  return `noreply@${new URL(config.publicUrl).hostname}`;
}
