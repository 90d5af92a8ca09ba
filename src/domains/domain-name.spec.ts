import { normalizeDomainName, senderDomainOf } from './domain-name';

describe('normalizeDomainName', () => {
  it.each([
    ['acme.example', 'acme.example'],
    ['  Mail.ACME.Example. ', 'mail.acme.example'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    [`${'a'.repeat(63)}.example`, `${'a'.repeat(63)}.example`],
  ])('accepts %j as %j', (raw, name) => {
    expect(normalizeDomainName(raw)).toBe(name);
  });

  it.each([
    '',
    'localhost',
    'acme',
    '.acme.example',
    'acme..example',
    '-acme.example',
    'acme-.example',
    'ac_me.example',
    'acme.example/path',
    'https://acme.example',
    'ada@acme.example',
    'acme example.com',
    '127.0.0.1',
  ])('refuses %j', (raw) => {
    expect(normalizeDomainName(raw)).toBeUndefined();
  });

  it('refuses a label over 63 characters and a name over 253', () => {
    expect(normalizeDomainName(`${'a'.repeat(64)}.example`)).toBeUndefined();
    expect(normalizeDomainName(`${'a.'.repeat(127)}example`)).toBeUndefined();
    expect(normalizeDomainName('x'.repeat(10_000))).toBeUndefined();
  });
});

describe('senderDomainOf', () => {
  it.each([
    ['news@Acme.Example', 'acme.example'],
    ['Acme News <news@acme.example>', 'acme.example'],
    ['"Acme <at> home" <news@Mail.Acme.Example>', 'mail.acme.example'],
    ['"weird@name" <news@acme.example>', 'acme.example'],
    ['news@bücher.example', 'xn--bcher-kva.example'],
  ])('reads the domain of %j', (from, domain) => {
    expect(senderDomainOf(from)).toBe(domain);
  });

  it.each(['no address', 'Acme <news>', 'news@', 'news@localhost'])(
    'finds no sender domain in %j',
    (from) => {
      expect(senderDomainOf(from)).toBeUndefined();
    },
  );
});
