import { Injectable, OnModuleInit } from '@nestjs/common';
import { Subscriber } from '../generated/prisma/client';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { runSql } from '../platform/database/sql-runner';
import { MailEventSubjects } from '../stats/mail-event-subjects';
import { fromPgRow } from './subscriber-events';
import { presentSubscriber } from './subscriber.presenter';
import * as sql from './subscriber-subjects.sql';

/** What outbound events say about subscribers: their address, or the whole subscriber. */
@Injectable()
export class SubscriberEventSubjects implements OnModuleInit {
  constructor(private readonly subjects: MailEventSubjects) {}

  onModuleInit(): void {
    this.subjects.provide({
      subscriberEmails: async (db, accountId, ids) => {
        const rows = await runSql<{ id: string; email: string }>(db, sql.EMAILS_OF, [
          accountId,
          ids,
        ]);
        return new Map(rows.map((row) => [row.id, row.email]));
      },
      subscriber: async (db, accountId, id) => {
        const [row] = await runSql<Subscriber>(db, sql.SUBSCRIBER_ROW, [accountId, id]);
        return row ? presentSubscriber(fromPgRow(row)) : null;
      },
      subscriberIdByEmail: async (db, accountId, email) => {
        const [row] = await runSql<{ id: string }>(db, sql.ID_BY_EMAIL, [
          accountId,
          normalizeEmail(email),
        ]);
        return row?.id ?? null;
      },
    });
  }
}
