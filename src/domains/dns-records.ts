/** What a DNS record is for, in the order the records are listed. */
export const RECORD_PURPOSES = ['dkim', 'spf', 'return_path', 'dmarc'] as const;
export type RecordPurpose = (typeof RECORD_PURPOSES)[number];

/**
 * The label of each sender domain's bounce subdomain: the envelope sender (Return-Path) of its
 * mail once verified, with an MX to BOUNCE_DOMAIN (bounces come back to Herald) and an SPF
 * record including BOUNCE_DOMAIN's (the relays that send for Herald), so SPF passes aligned
 * with the From domain.
 */
export const RETURN_PATH_LABEL = 'herald-bounces';
const MX_PRIORITY = 10;
/** Monitoring only: a safe first policy that breaks nobody's mail; owners tighten it later. */
const DMARC_SUGGESTION = 'v=DMARC1; p=none';

/** A record the domain's owner publishes; `key` names it in the stored check results. */
export interface ExpectedRecord {
  key: string;
  purpose: RecordPurpose;
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
}

export interface PublishedKey {
  selector: string;
  /** base64 of the DER SubjectPublicKeyInfo. */
  publicKey: string;
}

export function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`;
}

export function returnPathHost(domainName: string): string {
  return `${RETURN_PATH_LABEL}.${domainName}`;
}

/**
 * Every record of a domain: one DKIM TXT per key still to publish (the signing key, and a
 * rotation's next key while it waits), then SPF, return path and DMARC.
 */
export function expectedRecords(
  domainName: string,
  keys: readonly PublishedKey[],
  bounceDomain: string,
): ExpectedRecord[] {
  const bounceHost = returnPathHost(domainName);
  return [
    ...keys.map((key): ExpectedRecord => ({
      key: `dkim:${key.selector}`,
      purpose: 'dkim',
      type: 'TXT',
      name: `${key.selector}._domainkey.${domainName}`,
      value: dkimRecordValue(key.publicKey),
    })),
    {
      key: 'spf',
      purpose: 'spf',
      type: 'TXT',
      name: bounceHost,
      value: `v=spf1 include:${bounceDomain} ~all`,
    },
    {
      key: 'return_path',
      purpose: 'return_path',
      type: 'MX',
      name: bounceHost,
      value: bounceDomain,
      priority: MX_PRIORITY,
    },
    {
      key: 'dmarc',
      purpose: 'dmarc',
      type: 'TXT',
      name: `_dmarc.${domainName}`,
      value: DMARC_SUGGESTION,
    },
  ];
}
