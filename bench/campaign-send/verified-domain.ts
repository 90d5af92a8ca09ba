// A sender domain that is verified, stored in the bench database as the domains module stores
// one after a successful DNS check: a sender_domains row with status `verified` and every
// record `found` (the checks JSON DomainVerifier writes, with the values expectedRecords
// expects), and its RSA-2048 key, generated and sealed under HERALD_SECRET by the module's own
// generateDkimKeyPair and DkimKeyVault, `active`. Written directly rather than through a
// loopback DNS server and POST /v1/domains/{id}/verify: the send path reads only these rows,
// and the bench then also knows the public key, to check the signatures the sink receives.
// last_checked_at is now, so the workers' daily re-check leaves the domain alone for a day.
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { DkimKeyVault, generateDkimKeyPair, newSelector } from '../../src/domains/dkim-keys';
import { dkimRecordValue, expectedRecords } from '../../src/domains/dns-records';
import { RecordCheck } from '../../src/domains/record-checks';
import { loadConfig } from '../../src/platform/config/config';
import { newId } from '../../src/platform/crypto/ids';
import { withClient } from '../support/stores';

export interface VerifiedDomain {
  id: string;
  name: string;
  selector: string;
  /** The DKIM TXT record's value. */
  record: string;
}

export async function addVerifiedDomain(
  env: NodeJS.ProcessEnv & { DATABASE_URL: string },
  accountId: string,
  name: string,
): Promise<VerifiedDomain> {
  const config = loadConfig(env);
  const pair = await generateDkimKeyPair();
  const domainId = newId();
  const keyId = newId();
  const selector = newSelector();
  const now = new Date();
  const checks: Record<string, RecordCheck> = {};
  for (const record of expectedRecords(
    name,
    [{ selector, publicKey: pair.publicKey }],
    config.bounceDomain,
  )) {
    checks[record.key] = {
      status: 'found',
      reason: null,
      value: record.value,
      checkedAt: now.toISOString(),
    };
  }
  await withClient(env.DATABASE_URL, async (db) => {
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO sender_domains (id, account_id, name, status, checks, verified_at,
         last_checked_at)
       VALUES ($1, $2, $3, 'verified', $4, $5, $5)`,
      [domainId, accountId, name, JSON.stringify(checks), now],
    );
    await db.query(
      `INSERT INTO sender_domain_keys (id, account_id, domain_id, selector, public_key,
         private_key_encrypted, status, activated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'active', $7)`,
      [
        keyId,
        accountId,
        domainId,
        selector,
        pair.publicKey,
        new DkimKeyVault(config).seal(pair.privateKeyPem, keyId),
        now,
      ],
    );
    await db.query('COMMIT');
  });
  return { id: domainId, name, selector, record: dkimRecordValue(pair.publicKey) };
}

/** 'pass' when `message` carries a valid DKIM signature by `domain`'s key; else what failed. */
export async function dkimResult(message: Buffer, domain: VerifiedDomain): Promise<string> {
  const keyName = `${domain.selector}._domainkey.${domain.name}`;
  const result = await dkimVerify(message, {
    resolver: (name: string, type: string) =>
      name.toLowerCase() === keyName && type === 'TXT'
        ? Promise.resolve([[domain.record]])
        : Promise.reject(Object.assign(new Error(`no ${type} ${name}`), { code: 'ENOTFOUND' })),
  });
  const signature = result.results.find((entry) => entry.signingDomain === domain.name);
  if (!signature) return `no signature by ${domain.name}`;
  return signature.status.result === 'pass'
    ? 'pass'
    : `${signature.status.result}${signature.status.comment ? ` (${signature.status.comment})` : ''}`;
}
