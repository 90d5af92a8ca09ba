import { Injectable } from '@nestjs/common';
import { Prisma, Subscriber } from '../generated/prisma/client';
import { PgPool } from '../platform/database/pg-pool';
import { PrismaService } from '../platform/database/prisma.service';
import { PageRequest } from '../platform/pagination/page-request';
import { FeedbackKind } from '../feedback/feedback-report';
import { SOFT_BOUNCE_LIMIT, SuppressionReason } from '../suppression/suppression-reason';

type Db = Prisma.TransactionClient;

/** What a feedback report did to a subscriber: whether (and why) to suppress the address. */
export interface FeedbackEffect {
  suppress: SuppressionReason | undefined;
  emailNormalized: string;
}

/** Every column of `subscribers`, aliased to the field names of Prisma's Subscriber type. */
const COLUMNS = [
  'id',
  'account_id',
  'email',
  'email_normalized',
  'first_name',
  'last_name',
  'phone',
  'address1',
  'address2',
  'city',
  'state',
  'zip',
  'country_code',
  'birthdate',
  'gender',
  'income_level',
  'membership_status',
  'status',
  'timezone',
  'interests',
  'tags',
  'custom_fields',
  'social_media',
  'imported_stats',
  'stat_sent',
  'stat_delivered',
  'stat_opens',
  'stat_clicks',
  'stat_hard_bounces',
  'stat_soft_bounces',
  'stat_revenue_cents',
  'last_sent_at',
  'last_open_at',
  'last_click_at',
  'created_at',
  'updated_at',
]
  .map(
    (column) =>
      `${column} AS "${column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())}"`,
  )
  .join(', ');

const LIST_PAGE = `SELECT ${COLUMNS} FROM subscribers
  WHERE account_id = $1 AND ($2::uuid IS NULL OR id < $2::uuid)
  ORDER BY id DESC LIMIT $3`;

@Injectable()
export class SubscribersRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pool: PgPool,
  ) {}

  /**
   * Newest first, keyset on the time-ordered id. The hottest read of the API, so it goes
   * straight through pg: Prisma's runtime cost more than the query (docs/decisions.md).
   */
  async listPage(accountId: string, page: PageRequest): Promise<Subscriber[]> {
    const { rows } = await this.pool.query<Subscriber>(LIST_PAGE, [
      accountId,
      page.afterId ?? null,
      page.limit,
    ]);
    // pg returns int8 as a string; Prisma's type says bigint.
    for (const row of rows) row.statRevenueCents = BigInt(row.statRevenueCents);
    return rows;
  }

  findById(accountId: string, id: string): Promise<Subscriber | null> {
    return this.prisma.subscriber.findFirst({ where: { accountId, id } });
  }

  findByEmail(accountId: string, emailNormalized: string, db: Db): Promise<Subscriber | null> {
    return db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
    });
  }

  async emailTaken(accountId: string, emailNormalized: string, db: Db): Promise<boolean> {
    const found = await db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
      select: { id: true },
    });
    return found !== null;
  }

  create(
    accountId: string,
    id: string,
    columns: Prisma.SubscriberUncheckedUpdateInput,
    db: Db,
  ): Promise<Subscriber> {
    return db.subscriber.create({
      data: { ...columns, id, accountId } as Prisma.SubscriberUncheckedCreateInput,
    });
  }

  /** Null when the subscriber no longer exists (e.g. erased meanwhile). */
  async update(
    accountId: string,
    id: string,
    columns: Prisma.SubscriberUncheckedUpdateInput,
    db: Db,
  ): Promise<Subscriber | null> {
    const { count } = await db.subscriber.updateMany({
      where: { accountId, id },
      data: { ...columns, updatedAt: new Date() },
    });
    return count === 0 ? null : db.subscriber.findFirst({ where: { accountId, id } });
  }

  /**
   * A suppression entry was removed: the subscriber with that address goes back to
   * `subscribed` if its status is still the one the entry caused (`fromStatus`), and its
   * soft-bounce streak starts over. Returns whether a status changed.
   */
  async reactivate(
    accountId: string,
    emailNormalized: string,
    fromStatus: string | undefined,
    db: Db,
  ): Promise<boolean> {
    const rows = await db.$queryRaw<{ reactivated: boolean }[]>`
      UPDATE subscribers s
         SET status = CASE WHEN s.status = ${fromStatus ?? null} THEN 'subscribed' ELSE s.status END,
             soft_bounce_streak = 0, updated_at = now()
        FROM (SELECT id, status FROM subscribers
               WHERE account_id = ${accountId}::uuid AND email_normalized = ${emailNormalized}
                 FOR UPDATE) before
       WHERE s.id = before.id
      RETURNING before.status = ${fromStatus ?? null} AS reactivated`;
    return rows[0]?.reactivated ?? false;
  }

  /**
   * What a bounce, complaint or unsubscribe does to the subscriber: statistics and the
   * status Herald sets (only ever away from `subscribed`, and a complaint also overrides
   * `unsubscribed`). Says whether the address is to be suppressed, and for which reason: a
   * hard bounce, the SOFT_BOUNCE_LIMIT-th soft bounce in a row, a complaint, an unsubscribe.
   * Undefined when there is no such subscriber (erased meanwhile).
   */
  async applyFeedback(
    accountId: string,
    id: string,
    kind: FeedbackKind,
    db: Db,
  ): Promise<FeedbackEffect | undefined> {
    const [row] = await db.$queryRaw<{ streak: number; email_normalized: string }[]>`
      UPDATE subscribers
         SET stat_hard_bounces = stat_hard_bounces + ${kind === 'hard_bounce' ? 1 : 0},
             stat_soft_bounces = stat_soft_bounces + ${kind === 'soft_bounce' ? 1 : 0},
             soft_bounce_streak = soft_bounce_streak + ${kind === 'soft_bounce' ? 1 : 0},
             status = CASE
               WHEN ${kind} = 'hard_bounce' AND status = 'subscribed' THEN 'bounced'
               WHEN ${kind} = 'soft_bounce' AND status = 'subscribed'
                    AND soft_bounce_streak + 1 >= ${SOFT_BOUNCE_LIMIT} THEN 'bounced'
               WHEN ${kind} = 'complaint' AND status IN ('subscribed', 'unsubscribed') THEN 'complained'
               WHEN ${kind} = 'unsubscribe' AND status = 'subscribed' THEN 'unsubscribed'
               ELSE status END,
             updated_at = now()
       WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
      RETURNING soft_bounce_streak AS streak, email_normalized`;
    if (!row) return undefined;
    const suppress =
      kind === 'soft_bounce' ? (row.streak >= SOFT_BOUNCE_LIMIT ? 'hard_bounce' : undefined) : kind;
    return { suppress, emailNormalized: row.email_normalized };
  }
}
