import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { expectedRecords, RECORD_PURPOSES } from './dns-records';
import { DomainStatus, RecordCheck, RecordStatus } from './record-checks';
import { DomainWithKeys } from './sender-domains.repository';

const RECORD_STATUSES: RecordStatus[] = ['pending', 'found', 'missing', 'mismatch'];
const DOMAIN_STATUSES: DomainStatus[] = ['pending', 'verified', 'failed'];

export class DomainRecordResponse {
  @ApiProperty({ enum: RECORD_PURPOSES }) purpose!: string;
  @ApiProperty({ enum: ['TXT', 'MX'] }) type!: string;
  @ApiProperty({ example: 'herald-k3x9p2qa._domainkey.acme.example' }) name!: string;
  @ApiProperty({ description: 'What to publish: the TXT text, or the MX host.' }) value!: string;
  @ApiPropertyOptional({ type: 'integer', description: 'MX records only.' }) priority?: number;
  @ApiProperty({ enum: RECORD_STATUSES }) status!: RecordStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the record is not found, in words; null once found.',
  })
  reason!: string | null;
}

export class DomainResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'acme.example' }) name!: string;
  @ApiProperty({ enum: DOMAIN_STATUSES }) status!: DomainStatus;
  @ApiProperty({ type: [DomainRecordResponse] }) records!: DomainRecordResponse[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) verified_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_checked_at!: string | null;
  @ApiProperty({ description: 'The DKIM selector that signs (or will, once verified).' })
  dkim_selector!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A rotation’s next selector, signing once its record is found.',
  })
  pending_dkim_selector!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class DomainPage {
  @ApiProperty({ type: [DomainResponse] }) data!: DomainResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

/**
 * The signing key is the active one; before the first verification, the domain's first
 * (pending) key. Any other pending key is a rotation's next key.
 */
export function signingAndNextKey(domain: DomainWithKeys) {
  const active = domain.keys.find((key) => key.status === 'active');
  const pending = domain.keys.filter((key) => key.status === 'pending');
  return {
    signing: active ?? pending[0],
    next: active ? pending.at(-1) : undefined,
  };
}

export function presentDomain(domain: DomainWithKeys, bounceDomain: string): DomainResponse {
  const checks = domain.checks as unknown as Record<string, RecordCheck | undefined>;
  const { signing, next } = signingAndNextKey(domain);
  const keys = [signing, next].filter((key) => key !== undefined);
  return {
    id: domain.id,
    name: domain.name,
    status: domain.status as DomainStatus,
    records: expectedRecords(domain.name, keys, bounceDomain).map((record) => {
      const check = checks[record.key];
      // A check of another value (a changed BOUNCE_DOMAIN) says nothing about this one.
      const current = check && check.value === record.value ? check : undefined;
      return {
        purpose: record.purpose,
        type: record.type,
        name: record.name,
        value: record.value,
        ...(record.priority === undefined ? {} : { priority: record.priority }),
        status: current?.status ?? 'pending',
        reason: current
          ? current.reason
          : 'Not checked yet: publish the record, then verify the domain.',
      };
    }),
    verified_at: domain.verifiedAt?.toISOString() ?? null,
    last_checked_at: domain.lastCheckedAt?.toISOString() ?? null,
    dkim_selector: signing?.selector ?? '',
    pending_dkim_selector: next?.selector ?? null,
    created_at: domain.createdAt.toISOString(),
  };
}
