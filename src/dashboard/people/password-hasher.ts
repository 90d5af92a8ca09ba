import { compare, hash } from 'bcryptjs';

/**
 * Dashboard passwords are stored as bcrypt hashes (bcryptjs: pure JavaScript, so installs need
 * no native build). Cost 12 takes about half a second here: slow for a guesser, fine for a
 * person signing in.
 */
const COST = 12;

/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut. */
export const PASSWORD_MAX_BYTES = 72;
export const PASSWORD_MIN_LENGTH = 12;

/** Compared against when the email is unknown, so both paths take the same time. */
const DECOY_HASH = '$2b$12$Mfd5sqex51fGvu0sduN6nOVo3F4MH5AzjFQX1OL4hdrPV8KTgG9UK';

export function hashPassword(password: string): Promise<string> {
  return hash(password, COST);
}

export async function verifyPassword(password: string, passwordHash: string | undefined) {
  const matches = await compare(password, passwordHash ?? DECOY_HASH);
  return matches && passwordHash !== undefined;
}
