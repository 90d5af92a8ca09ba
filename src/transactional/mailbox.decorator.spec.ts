import { parseMailbox } from './mailbox.decorator';

describe('parseMailbox', () => {
  it.each([
    ['hello@acme.test', 'hello@acme.test'],
    ['Acme <hello@acme.test>', 'hello@acme.test'],
    ['"Acme, Inc." <hello@acme.test>', 'hello@acme.test'],
    ['  <hello@acme.test> ', 'hello@acme.test'],
  ])('reads %j', (value, address) => {
    expect(parseMailbox(value)).toBe(address);
  });

  it.each([
    'not an address',
    'Acme <not an address>',
    'Acme <hello@acme.test',
    'Acme <hello@acme.test>\r\nBcc: x@evil.test',
    'a <b@c.d> <e@f.g>',
  ])('refuses %j', (value) => {
    expect(parseMailbox(value)).toBeUndefined();
  });
});
