import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import type { SqlRunner } from '../platform/database/sql-runner';

/** What an event's payload says about the people, campaigns and messages it names. */
export interface SubjectLookups {
  /** The addresses of these subscribers (those that still exist). */
  subscriberEmails(
    db: SqlRunner,
    accountId: AccountId,
    ids: string[],
  ): Promise<Map<string, string>>;
  /** The subscriber as the API shows it; null once erased. */
  subscriber(db: SqlRunner, accountId: AccountId, id: string): Promise<object | null>;
  /** The subscriber an address belongs to in the account. */
  subscriberIdByEmail(db: SqlRunner, accountId: AccountId, email: string): Promise<string | null>;
  /** A campaign's name and From (its messages' Message-ID domain). */
  campaign(
    db: SqlRunner,
    accountId: AccountId,
    id: string,
  ): Promise<{ name: string; fromAddress: string } | null>;
  /** A transactional message's Message-ID and recipient, while they are kept. */
  transactional(
    db: SqlRunner,
    accountId: AccountId,
    id: string,
  ): Promise<{ messageId: string | null; email: string | null } | null>;
}

/**
 * Where the modules that own those rows (subscribers, campaigns, transactional) provide the
 * lookups, each registering its part at start-up, as erasure participants do: the stats module
 * sits below them (they call MailEvents), so it cannot import them.
 */
@Injectable()
export class MailEventSubjects {
  private lookups: Partial<SubjectLookups> = {};

  provide(part: Partial<SubjectLookups>): void {
    this.lookups = { ...this.lookups, ...part };
  }

  get<K extends keyof SubjectLookups>(name: K): SubjectLookups[K] {
    const lookup = this.lookups[name];
    if (!lookup) throw new Error(`No module provides the mail event lookup ${name}`);
    return lookup;
  }
}
