import { createPublicKey, createSign, createVerify, createPrivateKey } from 'node:crypto';
import { dkimRecordValue, expectedRecords } from './dns-records';
import { generateDkimKeyPair, newSelector } from './dkim-keys';

describe('expectedRecords', () => {
  const keys = [
    { selector: 'herald-aaaaaaaa', publicKey: 'MIIBkey1' },
    { selector: 'herald-bbbbbbbb', publicKey: 'MIIBkey2' },
  ];

  it('lists a DKIM TXT per key, then SPF, return path and DMARC', () => {
    expect(expectedRecords('acme.example', keys, 'bounce.herald.example')).toEqual([
      {
        key: 'dkim:herald-aaaaaaaa',
        purpose: 'dkim',
        type: 'TXT',
        name: 'herald-aaaaaaaa._domainkey.acme.example',
        value: 'v=DKIM1; k=rsa; p=MIIBkey1',
      },
      {
        key: 'dkim:herald-bbbbbbbb',
        purpose: 'dkim',
        type: 'TXT',
        name: 'herald-bbbbbbbb._domainkey.acme.example',
        value: 'v=DKIM1; k=rsa; p=MIIBkey2',
      },
      {
        key: 'spf',
        purpose: 'spf',
        type: 'TXT',
        name: 'herald-bounces.acme.example',
        value: 'v=spf1 include:bounce.herald.example ~all',
      },
      {
        key: 'return_path',
        purpose: 'return_path',
        type: 'MX',
        name: 'herald-bounces.acme.example',
        value: 'bounce.herald.example',
        priority: 10,
      },
      {
        key: 'dmarc',
        purpose: 'dmarc',
        type: 'TXT',
        name: '_dmarc.acme.example',
        value: 'v=DMARC1; p=none',
      },
    ]);
  });
});

describe('DKIM keys', () => {
  it('generates an RSA-2048 pair whose record value holds the public key', async () => {
    const pair = await generateDkimKeyPair();
    const publicKey = createPublicKey({
      key: Buffer.from(pair.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(publicKey.asymmetricKeyType).toBe('rsa');
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(pair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    // The published key verifies what the private key signs.
    const signature = createSign('sha256')
      .update('hello')
      .sign(createPrivateKey(pair.privateKeyPem));
    expect(createVerify('sha256').update('hello').verify(publicKey, signature)).toBe(true);
    expect(dkimRecordValue(pair.publicKey)).toBe(`v=DKIM1; k=rsa; p=${pair.publicKey}`);
  });

  it('gives every key its own selector, a valid DNS label', () => {
    const selectors = new Set(Array.from({ length: 200 }, () => newSelector()));
    expect(selectors.size).toBe(200);
    for (const selector of selectors) expect(selector).toMatch(/^herald-[a-z2-7]{8}$/);
  });
});
