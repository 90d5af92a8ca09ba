import { parseAccountId } from '../../src/platform/database/account-id';
import type { INestApplicationContext } from '@nestjs/common';
import { AccountsService } from '../../src/accounts/accounts.service';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import type { KeyPrincipal } from '../../src/auth/principal';
import { Scope, SCOPES } from '../../src/auth/scopes';
import type { Prisma } from '../../src/generated/prisma/client';
import { newId } from '../../src/platform/crypto/ids';
import { PrismaService } from '../../src/platform/database/prisma.service';

/** An account's id as the accounts service hands it out (the type repositories take). */
export type TestAccountId = Awaited<ReturnType<AccountsService['create']>>['id'];

/** An account with one key holding the given scopes, in every shape a test needs it. */
export interface Tenant {
  accountId: TestAccountId;
  keyId: string;
  /** The key's secret. */
  key: string;
  /** `Authorization` header value. */
  auth: string;
  /** The caller as services receive it. */
  principal: KeyPrincipal;
}

type Overrides<T> = Partial<Omit<T, 'id' | 'accountId' | 'account'>>;

/**
 * One-line builders of the rows tests start from. Accounts and keys go through their
 * services (a key's secret is hashed there); subscribers, templates, segments and campaigns
 * are written as rows, since their own API paths are what other tests exercise, and a test
 * of a campaign or a segment only needs them to exist. Works on any Herald Nest context: the
 * HTTP app of an e2e test or the application context of a medium test.
 */
export class Factories {
  private seq = 0;

  constructor(private readonly app: INestApplicationContext) {}

  private get prisma(): PrismaService {
    return this.app.get(PrismaService);
  }

  async account(name = 'Acme'): Promise<TestAccountId> {
    return (await this.app.get(AccountsService).create(name)).id;
  }

  async key(accountId: string, scopes: readonly Scope[] = SCOPES) {
    return this.app.get(ApiKeysService).create(parseAccountId(accountId), 'test key', [...scopes]);
  }

  /** An account and a key with (by default) every scope. */
  async tenant(name = 'Acme', scopes: readonly Scope[] = SCOPES): Promise<Tenant> {
    const accountId = await this.account(name);
    const { id: keyId, key } = await this.key(accountId, scopes);
    return {
      accountId,
      keyId,
      key,
      auth: `Bearer ${key}`,
      principal: { accountId, apiKeyId: keyId, scopes },
    };
  }

  /** A subscriber; the email defaults to a fresh `person-<n>@example.com`. */
  subscriber(accountId: string, overrides: Overrides<Prisma.SubscriberUncheckedCreateInput> = {}) {
    const email = overrides.email ?? `person-${++this.seq}-${newId().slice(0, 8)}@example.com`;
    return this.prisma.subscriber.create({
      data: { emailNormalized: email.toLowerCase(), ...overrides, id: newId(), accountId, email },
    });
  }

  /**
   * `count` subscribers in bulk (a campaign test needs an audience fast): emails
   * `<prefix><i>@<domain>`, first names `Person <i>`, custom field `n` = i.
   */
  async subscribers(
    accountId: string,
    count: number,
    { prefix = 'reader', domain = 'example.com' } = {},
  ): Promise<{ id: string; email: string; index: number }[]> {
    const rows = Array.from({ length: count }, (_, index) => ({
      id: newId(),
      email: `${prefix}${index}@${domain}`,
      index,
    }));
    for (let start = 0; start < rows.length; start += 5000) {
      const slice = rows.slice(start, start + 5000);
      await this.prisma.$executeRawUnsafe(
        `INSERT INTO subscribers (id, account_id, email, email_normalized, first_name, custom_fields)
         SELECT u.id, $1::uuid, u.email, u.email, 'Person ' || u.n, jsonb_build_object('n', u.n)
           FROM unnest($2::uuid[], $3::text[], $4::int[]) AS u(id, email, n)`,
        accountId,
        slice.map((r) => r.id),
        slice.map((r) => r.email),
        slice.map((r) => r.index),
      );
    }
    return rows;
  }

  template(accountId: string, overrides: Overrides<Prisma.TemplateUncheckedCreateInput> = {}) {
    return this.prisma.template.create({
      data: {
        name: `Template ${++this.seq}`,
        subject: 'Hello {{first_name}}',
        html: '<p>Hello {{first_name}}</p>',
        text: 'Hello {{first_name}}',
        ...overrides,
        id: newId(),
        accountId,
      },
    });
  }

  /** A segment with the given filter (the JSON the API accepts, stored as given). */
  segment(accountId: string, filter: Prisma.InputJsonValue, name = `Segment ${++this.seq}`) {
    return this.prisma.segment.create({ data: { id: newId(), accountId, name, filter } });
  }

  /** A draft campaign to everyone unless `segmentId` says otherwise. */
  campaign(accountId: string, overrides: Overrides<Prisma.CampaignUncheckedCreateInput> = {}) {
    return this.prisma.campaign.create({
      data: {
        name: `Campaign ${++this.seq}`,
        subject: 'News for {{first_name}}',
        fromAddress: 'news@acme.test',
        html: '<p>Hi {{first_name}}</p>',
        text: 'Hi {{first_name}}',
        ...overrides,
        id: newId(),
        accountId,
      },
    });
  }
}
