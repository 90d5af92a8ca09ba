import { accountIdOfRow } from '../platform/database/account-id';
import { Inject, Injectable } from '@nestjs/common';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { ExpectedRecord, expectedRecords } from './dns-records';
import { DnsLookup } from './dns-lookup';
import { signingAndNextKey } from './domain.presenter';
import {
  checkDkim,
  checkDmarc,
  checkReturnPath,
  checkSpf,
  domainStatusFrom,
  MxLookup,
  mergeCheck,
  RecordCheck,
  TxtLookup,
} from './record-checks';
import { DomainWithKeys, SenderDomainsRepository } from './sender-domains.repository';

/**
 * Checks a domain's records in DNS and stores what it found. Each distinct name and type is
 * asked once, all at once. When the record of a rotation's next key is found, that key takes
 * over signing in the same write.
 */
@Injectable()
export class DomainVerifier {
  constructor(
    private readonly dns: DnsLookup,
    private readonly domains: SenderDomainsRepository,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  /** False when the domain was deleted meanwhile. */
  async verify(domain: DomainWithKeys, now = new Date()): Promise<boolean> {
    const { signing, next } = signingAndNextKey(domain);
    const keys = [signing, next].filter((key) => key !== undefined);
    const records = expectedRecords(domain.name, keys, this.config.bounceDomain);
    const lookups = await this.lookUp(records);
    const previous = domain.checks as unknown as Record<string, RecordCheck | undefined>;

    const checks: Record<string, RecordCheck> = {};
    for (const record of records) {
      const answer = lookups.get(`${record.type} ${record.name}`)!;
      const verdict =
        record.purpose === 'dkim'
          ? checkDkim(record, answer as TxtLookup)
          : record.purpose === 'spf'
            ? checkSpf(record, this.config.bounceDomain, answer as TxtLookup)
            : record.purpose === 'return_path'
              ? checkReturnPath(record, answer as MxLookup)
              : checkDmarc(record, answer as TxtLookup);
      checks[record.key] = mergeCheck(record, verdict, previous[record.key], now);
    }

    const promote =
      next && checks[`dkim:${next.selector}`].status === 'found'
        ? next
        : signing &&
            signing.status === 'pending' &&
            checks[`dkim:${signing.selector}`].status === 'found'
          ? signing
          : undefined;
    const signer = next && promote === next ? next : signing;
    const status = domainStatusFrom(signer && checks[`dkim:${signer.selector}`]);
    const stillVerified = status === 'verified' && domain.status === 'verified';
    return this.domains.saveCheck(accountIdOfRow(domain.accountId), domain.id, {
      status,
      checks,
      verifiedAt: status !== 'verified' ? null : stillVerified ? (domain.verifiedAt ?? now) : now,
      checkedAt: now,
      promoteKeyId: promote?.id,
    });
  }

  private async lookUp(records: ExpectedRecord[]): Promise<Map<string, TxtLookup | MxLookup>> {
    const questions = [...new Set(records.map((record) => `${record.type} ${record.name}`))];
    const answers = await Promise.all(
      questions.map((question) => {
        const [type, name] = question.split(' ');
        return type === 'MX' ? this.dns.mx(name) : this.dns.txt(name);
      }),
    );
    return new Map(questions.map((question, index) => [question, answers[index]]));
  }
}
