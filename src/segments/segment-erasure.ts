import { Injectable, OnModuleInit } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import {
  ErasedIdentityRef,
  ErasureParticipant,
  ErasureRegistry,
} from '../erasure/erasure-participant';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { Db } from '../platform/database/db';
import { SegmentsRepository } from './segments.repository';

/**
 * A segment filter can name a person (`{"field": "email", "op": "eq", "value": "ada@…"}`).
 * Erasure replaces such values with a token derived from the tombstone hash. The audience
 * stays exactly the same: an erased email can never be written to a subscriber again, and
 * the token (no `@`) is no email at all, so neither ever matches.
 */
@Injectable()
export class SegmentFilterErasure implements ErasureParticipant, OnModuleInit {
  readonly name = 'segment filters';

  constructor(
    private readonly registry: ErasureRegistry,
    private readonly segments: SegmentsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async erase(tx: Db, identity: ErasedIdentityRef): Promise<void> {
    const { accountId, emailNormalized, emailHash } = identity;
    // Only filters with an email condition can name someone; the walk below decides.
    const candidates = await this.segments.filtersWithEmailConditions(accountId, tx);
    for (const { id, filter } of candidates) {
      const redacted = redactEmail(filter, emailNormalized, `erased:${emailHash}`);
      if (redacted !== filter) {
        await this.segments.replaceFilter(accountId, id, redacted as Prisma.InputJsonValue, tx);
      }
    }
  }
}

/**
 * The filter with every email condition value equal to `email` (normalised) replaced; the
 * same object when nothing matched.
 */
export function redactEmail(filter: unknown, email: string, replacement: string): unknown {
  if (Array.isArray(filter)) {
    const items = filter.map((item) => redactEmail(item, email, replacement));
    return items.some((item, index) => item !== filter[index]) ? items : filter;
  }
  if (typeof filter !== 'object' || filter === null) return filter;
  const node = filter as Record<string, unknown>;
  if (node.field === 'email' && Object.hasOwn(node, 'value')) {
    const swap = (value: unknown) =>
      typeof value === 'string' && normalizeEmail(value) === email ? replacement : value;
    const value = Array.isArray(node.value) ? node.value.map(swap) : swap(node.value);
    const changed = Array.isArray(value)
      ? value.some((item, index) => item !== (node.value as unknown[])[index])
      : value !== node.value;
    return changed ? { ...node, value } : filter;
  }
  for (const key of ['and', 'or']) {
    if (!Object.hasOwn(node, key)) continue;
    const redacted = redactEmail(node[key], email, replacement);
    if (redacted !== node[key]) return { ...node, [key]: redacted };
  }
  return filter;
}
