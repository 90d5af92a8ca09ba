import { ExpectedRecord } from './dns-records';

export type RecordStatus = 'pending' | 'found' | 'missing' | 'mismatch';
export type DomainStatus = 'pending' | 'verified' | 'failed';

/** The outcome of checking one record; `value` is what was expected at the time. */
export interface RecordCheck {
  status: RecordStatus;
  reason: string | null;
  value: string;
  checkedAt?: string;
}

/**
 * What the resolver said for a name and type: the answers, that there are none (NXDOMAIN or
 * no record of that type), or that it could not tell (timeout, SERVFAIL, refused…).
 */
export type Lookup<T> = { answers: T } | { absent: true } | { failure: string };
/** TXT answers: one array of character-strings per record. */
export type TxtLookup = Lookup<string[][]>;
export type MxLookup = Lookup<{ exchange: string; priority: number }[]>;

/** The outcome of one check before it is merged with the previous one. */
export type Verdict = { status: Exclude<RecordStatus, 'pending'>; reason: string | null };

export function checkDkim(expected: ExpectedRecord, lookup: TxtLookup): Verdict | Failure {
  if ('failure' in lookup) return lookupFailed(lookup.failure);
  const records = 'absent' in lookup ? [] : lookup.answers.map(joinTxt);
  if (records.length === 0) {
    return missing(`No TXT record at ${expected.name}. Publish the value shown there.`);
  }
  const wanted = keyOf(expected.value);
  const keys = records.map(keyOf);
  if (keys.includes(wanted)) return { status: 'found', reason: null };
  const other = keys.find((key) => key !== undefined);
  if (other === '') {
    return mismatch(`The record at ${expected.name} holds an empty (revoked) key.`);
  }
  if (other !== undefined) {
    return mismatch(
      `The record at ${expected.name} holds another key (p=${abbreviate(other)}). ` +
        'Replace it with the value shown; check that nothing was cut off or added when pasting.',
    );
  }
  return mismatch(`The TXT record at ${expected.name} is not a DKIM key (it has no p= tag).`);
}

export function checkSpf(
  expected: ExpectedRecord,
  bounceDomain: string,
  lookup: TxtLookup,
): Verdict | Failure {
  if ('failure' in lookup) return lookupFailed(lookup.failure);
  const records = ('absent' in lookup ? [] : lookup.answers.map(joinTxt)).filter((record) =>
    /^v=spf1(\s|$)/i.test(record.trim()),
  );
  if (records.length === 0) {
    return missing(`No SPF record (a TXT starting with v=spf1) at ${expected.name}.`);
  }
  if (records.length > 1) {
    return mismatch(
      `${records.length} SPF records at ${expected.name}: receivers treat more than one as an ` +
        'error. Merge them into one.',
    );
  }
  const include = `include:${bounceDomain}`;
  const mechanisms = records[0].toLowerCase().split(/\s+/);
  if (mechanisms.some((term) => term === include || term === `+${include}`)) {
    return { status: 'found', reason: null };
  }
  return mismatch(`The SPF record at ${expected.name} does not contain ${include}.`);
}

export function checkReturnPath(expected: ExpectedRecord, lookup: MxLookup): Verdict | Failure {
  if ('failure' in lookup) return lookupFailed(lookup.failure);
  const hosts = 'absent' in lookup ? [] : lookup.answers.map((mx) => hostName(mx.exchange));
  if (hosts.length === 0) return missing(`No MX record at ${expected.name}.`);
  if (hosts.includes(hostName(expected.value))) return { status: 'found', reason: null };
  return mismatch(
    `The MX record at ${expected.name} points to ${hosts.join(', ')}, not ${expected.value}.`,
  );
}

/** Any one DMARC record will do: the owner's own policy is theirs to choose. */
export function checkDmarc(expected: ExpectedRecord, lookup: TxtLookup): Verdict | Failure {
  if ('failure' in lookup) return lookupFailed(lookup.failure);
  const records = ('absent' in lookup ? [] : lookup.answers.map(joinTxt)).filter((record) =>
    /^v=DMARC1\s*(;|$)/i.test(record.trim()),
  );
  if (records.length === 0) {
    return missing(
      `No DMARC record at ${expected.name}. Without one receivers apply no policy to mail ` +
        'that fails authentication; publish the suggestion or your own policy.',
    );
  }
  if (records.length > 1) {
    return mismatch(
      `${records.length} DMARC records at ${expected.name}: receivers ignore them all. ` +
        'Keep one.',
    );
  }
  return { status: 'found', reason: null };
}

/** A lookup that could not tell: the previous result stands (see mergeCheck). */
export interface Failure {
  failure: string;
}

/**
 * The stored result of a check. A DNS server that did not answer says nothing about the
 * record, so a failed lookup keeps the previous status (a verified domain is not failed by a
 * resolver's bad minute) and only says why it could not check.
 */
export function mergeCheck(
  expected: ExpectedRecord,
  verdict: Verdict | Failure,
  previous: RecordCheck | undefined,
  checkedAt: Date,
): RecordCheck {
  if ('status' in verdict) {
    return { ...verdict, value: expected.value, checkedAt: checkedAt.toISOString() };
  }
  const stillValid = previous && previous.value === expected.value ? previous : undefined;
  return {
    status: stillValid?.status ?? 'pending',
    reason:
      `The DNS lookup of ${expected.name} failed (${verdict.failure}); ` +
      (stillValid && stillValid.status !== 'pending'
        ? 'the previous result stands until the next check.'
        : 'Herald will check again.'),
    value: expected.value,
    checkedAt: stillValid?.checkedAt,
  };
}

/**
 * A domain is verified while the DKIM record of its signing key is found: that proves the
 * account controls the domain's DNS, and it is what makes DMARC pass. SPF, return path and
 * DMARC are reported but do not decide.
 */
export function domainStatusFrom(signingKeyCheck: RecordCheck | undefined): DomainStatus {
  switch (signingKeyCheck?.status) {
    case 'found':
      return 'verified';
    case 'missing':
    case 'mismatch':
      return 'failed';
    default:
      return 'pending';
  }
}

/** RFC 7208 / 6376: a TXT record's character-strings are joined without separators. */
function joinTxt(chunks: string[]): string {
  return chunks.join('');
}

/** The p= tag of a DKIM record without its whitespace; undefined when it has none. */
function keyOf(record: string): string | undefined {
  for (const tag of record.split(';')) {
    const equals = tag.indexOf('=');
    if (equals < 0) continue;
    if (tag.slice(0, equals).trim() === 'p') return tag.slice(equals + 1).replace(/\s+/g, '');
  }
  return undefined;
}

function hostName(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

function abbreviate(key: string): string {
  return key.length > 24 ? `${key.slice(0, 10)}…${key.slice(-10)}` : key;
}

function missing(reason: string): Verdict {
  return { status: 'missing', reason };
}

function mismatch(reason: string): Verdict {
  return { status: 'mismatch', reason };
}

function lookupFailed(code: string): Failure {
  return { failure: code };
}
