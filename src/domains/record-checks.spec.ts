import { expectedRecords } from './dns-records';
import {
  checkDkim,
  checkDmarc,
  checkReturnPath,
  checkSpf,
  domainStatusFrom,
  mergeCheck,
  RecordCheck,
} from './record-checks';

const BOUNCE = 'bounce.herald.example';
const [dkim, spf, returnPath, dmarc] = expectedRecords(
  'acme.example',
  [{ selector: 'herald-aaaaaaaa', publicKey: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA' }],
  BOUNCE,
);
const txt = (...records: string[][]) => ({ answers: records });

describe('checkDkim', () => {
  it('finds the key, also split into several strings and with spaces in p=', () => {
    expect(checkDkim(dkim, txt([dkim.value]))).toEqual({ status: 'found', reason: null });
    expect(
      checkDkim(dkim, txt(['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0B', 'AQEFAAOCAQ8A MIIBCgKCAQEA'])),
    ).toEqual({ status: 'found', reason: null });
  });

  it('says what is wrong otherwise', () => {
    expect(checkDkim(dkim, { absent: true })).toMatchObject({
      status: 'missing',
      reason: expect.stringContaining('No TXT record at herald-aaaaaaaa._domainkey.acme.example'),
    });
    expect(
      checkDkim(dkim, txt(['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEB'])),
    ).toMatchObject({
      status: 'mismatch',
      reason: expect.stringContaining('holds another key'),
    });
    expect(checkDkim(dkim, txt(['v=DKIM1; p=']))).toMatchObject({
      status: 'mismatch',
      reason: expect.stringContaining('revoked'),
    });
    expect(checkDkim(dkim, txt(['google-site-verification=abc']))).toMatchObject({
      status: 'mismatch',
      reason: expect.stringContaining('not a DKIM key'),
    });
  });

  it('reports a lookup that could not tell as a failure, not as missing', () => {
    expect(checkDkim(dkim, { failure: 'ETIMEOUT' })).toEqual({ failure: 'ETIMEOUT' });
  });
});

describe('checkSpf', () => {
  it('finds one SPF record including the bounce domain among other TXT records', () => {
    expect(
      checkSpf(spf, BOUNCE, txt(['some-verification=1'], [`v=spf1 mx include:${BOUNCE} -all`])),
    ).toEqual({ status: 'found', reason: null });
    expect(checkSpf(spf, BOUNCE, txt([`V=SPF1 +include:${BOUNCE.toUpperCase()} ~all`]))).toEqual({
      status: 'found',
      reason: null,
    });
  });

  it('is missing without an SPF record, mismatched without the include or with two records', () => {
    expect(checkSpf(spf, BOUNCE, { absent: true })).toMatchObject({ status: 'missing' });
    expect(checkSpf(spf, BOUNCE, txt(['v=spf1x']))).toMatchObject({ status: 'missing' });
    expect(checkSpf(spf, BOUNCE, txt(['v=spf1 include:other.example ~all']))).toMatchObject({
      status: 'mismatch',
      reason: expect.stringContaining(`does not contain include:${BOUNCE}`),
    });
    expect(
      checkSpf(spf, BOUNCE, txt(['v=spf1 include:x.example.bounce.herald.example ~all'])),
    ).toMatchObject({
      status: 'mismatch',
    });
    expect(
      checkSpf(spf, BOUNCE, txt([spf.value], ['v=spf1 include:other.example ~all'])),
    ).toMatchObject({ status: 'mismatch', reason: expect.stringContaining('2 SPF records') });
  });
});

describe('checkReturnPath', () => {
  it('finds an MX to the bounce domain, with or without the trailing dot', () => {
    expect(
      checkReturnPath(returnPath, {
        answers: [
          { exchange: 'other.example', priority: 20 },
          { exchange: 'Bounce.Herald.Example.', priority: 10 },
        ],
      }),
    ).toEqual({ status: 'found', reason: null });
  });

  it('says where the MX points when it points elsewhere', () => {
    expect(checkReturnPath(returnPath, { absent: true })).toMatchObject({ status: 'missing' });
    expect(
      checkReturnPath(returnPath, { answers: [{ exchange: 'mx.other.example', priority: 10 }] }),
    ).toMatchObject({
      status: 'mismatch',
      reason: expect.stringContaining('points to mx.other.example, not bounce.herald.example'),
    });
  });
});

describe('checkDmarc', () => {
  it('accepts the owner’s own policy', () => {
    expect(checkDmarc(dmarc, txt(['v=DMARC1; p=reject; rua=mailto:d@acme.example']))).toEqual({
      status: 'found',
      reason: null,
    });
  });

  it('is missing without a record and mismatched with two', () => {
    expect(checkDmarc(dmarc, txt(['v=spf1 -all']))).toMatchObject({ status: 'missing' });
    expect(checkDmarc(dmarc, txt(['v=DMARC1; p=none'], ['v=DMARC1; p=reject']))).toMatchObject({
      status: 'mismatch',
      reason: expect.stringContaining('ignore them all'),
    });
  });
});

describe('mergeCheck and domainStatusFrom', () => {
  const now = new Date('2026-11-25T10:00:00Z');
  const found: RecordCheck = {
    status: 'found',
    reason: null,
    value: dkim.value,
    checkedAt: '2026-11-24T10:00:00.000Z',
  };

  it('stores a verdict with the value it was checked against', () => {
    expect(mergeCheck(dkim, { status: 'missing', reason: 'gone' }, found, now)).toEqual({
      status: 'missing',
      reason: 'gone',
      value: dkim.value,
      checkedAt: now.toISOString(),
    });
  });

  it('keeps the previous result when the lookup failed, and says so', () => {
    const merged = mergeCheck(dkim, { failure: 'ESERVFAIL' }, found, now);
    expect(merged).toMatchObject({ status: 'found', checkedAt: found.checkedAt });
    expect(merged.reason).toContain('failed (ESERVFAIL); the previous result stands');
    expect(domainStatusFrom(merged)).toBe('verified');
  });

  it('does not keep a previous result for another value', () => {
    const stale = { ...found, value: 'v=DKIM1; k=rsa; p=old' };
    expect(mergeCheck(dkim, { failure: 'ETIMEOUT' }, stale, now)).toMatchObject({
      status: 'pending',
      reason: expect.stringContaining('Herald will check again'),
    });
  });

  it('derives the domain status from the signing key’s record alone', () => {
    expect(domainStatusFrom(undefined)).toBe('pending');
    expect(domainStatusFrom({ ...found, status: 'pending' })).toBe('pending');
    expect(domainStatusFrom(found)).toBe('verified');
    expect(domainStatusFrom({ ...found, status: 'missing' })).toBe('failed');
    expect(domainStatusFrom({ ...found, status: 'mismatch' })).toBe('failed');
  });
});
