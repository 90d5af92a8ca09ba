import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { Principal } from '../../auth/principal';
import { isUuid, newId } from '../../platform/crypto/ids';
import { PrismaService } from '../../platform/database/prisma.service';
import { ValidationFailedError } from '../../platform/errors/api-errors';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { IdempotentOutcome, IdempotentRequests } from '../../transactional/idempotent-requests';
import { AutomationsRepository } from '../definition/automations.repository';
import { AutomationEnrolment } from '../runs/automation-enrolment';
import { CreateEventDto, EventResponse } from './automation-event.dto';
import { AutomationEventsRepository } from './automation-events.repository';

const ENDPOINT = 'POST /v1/events';
/** Largest `properties` kept with an event, as JSON. */
const MAX_PROPERTIES_BYTES = 16 * 1024;

const invalid = (field: string, code: string, message: string) =>
  new ValidationFailedError([{ field, code, message }]);

/**
 * POST /v1/events: records what the account's systems say a subscriber did, and enrols them
 * in every active automation waiting for that event's name, in the same transaction (with
 * the Idempotency-Key's answer, when there is one): an event enrols once or not at all.
 */
@Injectable()
export class AutomationEventsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly events: AutomationEventsRepository,
    private readonly automations: AutomationsRepository,
    private readonly enrolment: AutomationEnrolment,
    private readonly subscribers: SubscribersService,
    private readonly idempotent: IdempotentRequests,
  ) {}

  async record(
    caller: Principal,
    body: CreateEventDto,
    key: string | undefined,
  ): Promise<IdempotentOutcome> {
    const id = newId();
    return this.idempotent.run(caller.accountId, ENDPOINT, key, body, id, async (complete) => {
      const subscriberId = await this.subscriberOf(caller, body);
      const properties = body.properties as Prisma.InputJsonObject | undefined;
      if (properties && JSON.stringify(properties).length > MAX_PROPERTIES_BYTES) {
        throw invalid('properties', 'too_large', 'properties holds at most 16 KiB of JSON.');
      }
      const occurredAt = new Date();
      const response: EventResponse = {
        id,
        name: body.name,
        subscriber_id: subscriberId,
        occurred_at: occurredAt.toISOString(),
      };
      await this.prisma.$transaction(async (tx) => {
        await this.events.create(
          caller.accountId,
          { id, name: body.name, subscriberId, properties, occurredAt },
          tx,
        );
        for (const automation of await this.automations.activeForEvent(
          caller.accountId,
          body.name,
          tx,
        )) {
          await this.enrolment.enrol(automation, [{ subscriberId, key: `event:${id}` }], tx);
        }
        await complete(tx, { status: 202, body: response });
      });
      return { status: 202, body: response };
    });
  }

  private async subscriberOf(caller: Principal, body: CreateEventDto): Promise<string> {
    if (body.email !== undefined && body.subscriber_id !== undefined) {
      throw invalid('subscriber_id', 'conflict', 'Give either email or subscriber_id, not both.');
    }
    if (body.email !== undefined) {
      const row = await this.subscribers.findByEmail(caller.accountId, body.email);
      if (!row) throw invalid('email', 'not_found', 'No subscriber has this email.');
      return row.id;
    }
    if (body.subscriber_id === undefined) {
      throw invalid('email', 'required', 'Name the subscriber by email or subscriber_id.');
    }
    const row = isUuid(body.subscriber_id)
      ? await this.subscribers.findRow(caller.accountId, body.subscriber_id)
      : null;
    if (!row) throw invalid('subscriber_id', 'not_found', 'No such subscriber.');
    return row.id;
  }
}
