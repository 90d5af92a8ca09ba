import type { AccountId } from '../platform/database/account-id';

/** How long an answer about a sender domain is used before PostgreSQL is asked again. */
export const RECENT_ANSWER_TTL_MS = 5_000;
/** Accounts' sender domains remembered at once; the oldest goes first. */
const MAX_ENTRIES = 1_000;

interface Entry<T> {
  answer: T;
  until: number;
}

/**
 * What this process learned about accounts' sender domains in the last few seconds: whether
 * one is verified (asked at every send request) and how it signs (asked at every transactional
 * message sent), queries for what only changes when a domain is verified, re-checked, rotated
 * or deleted. A change made in this process forgets everything at once; one made in another
 * process shows within the TTL, during which mail goes out as it would have a moment before.
 * `remembers` says which answers are kept (all unless given).
 */
export class RecentAnswers<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Moves on at every forgetAll, so a lookup that began before it is not remembered. */
  private generation = 0;

  constructor(
    private readonly remembers: (answer: T) => boolean = () => true,
    private readonly ttlMs = RECENT_ANSWER_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(accountId: AccountId, domain: string, lookUp: () => Promise<T>): Promise<T> {
    const key = `${accountId} ${domain}`;
    const known = this.entries.get(key);
    if (known && known.until > this.now()) return known.answer;
    const generation = this.generation;
    const answer = await lookUp();
    if (generation === this.generation && this.remembers(answer)) this.remember(key, answer);
    return answer;
  }

  forgetAll(): void {
    this.entries.clear();
    this.generation++;
  }

  private remember(key: string, answer: T) {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, { answer, until: this.now() + this.ttlMs });
  }
}
