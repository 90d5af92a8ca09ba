import type { AccountId } from '../platform/database/account-id';
import type { SenderIdentity } from './sender-identity';

/** How long a signing identity looked up is used before PostgreSQL is asked again. */
export const SIGNING_IDENTITY_TTL_MS = 5_000;
/** Accounts' sender domains remembered at once; the oldest goes first. */
const MAX_ENTRIES = 1_000;

interface Entry {
  identity: SenderIdentity | undefined;
  until: number;
}

/**
 * The signing identities (or their absence) this process looked up in the last few seconds.
 * Each transactional message looks its sender's key up when it is sent: queries for what only
 * changes when a domain is verified, re-checked, rotated or deleted. A change made in this
 * process forgets them all at once; one made in another process shows within the TTL, during
 * which mail goes out as it would have a moment before the change.
 */
export class RecentSigningIdentities {
  private readonly entries = new Map<string, Entry>();
  /** Moves on at every forgetAll, so a lookup that began before it is not remembered. */
  private generation = 0;

  constructor(
    private readonly ttlMs = SIGNING_IDENTITY_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(
    accountId: AccountId,
    domain: string,
    lookUp: () => Promise<SenderIdentity | undefined>,
  ): Promise<SenderIdentity | undefined> {
    const key = `${accountId} ${domain}`;
    const known = this.entries.get(key);
    if (known && known.until > this.now()) return known.identity;
    const generation = this.generation;
    const identity = await lookUp();
    if (generation === this.generation) this.remember(key, identity);
    return identity;
  }

  forgetAll(): void {
    this.entries.clear();
    this.generation++;
  }

  private remember(key: string, identity: SenderIdentity | undefined) {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, { identity, until: this.now() + this.ttlMs });
  }
}
