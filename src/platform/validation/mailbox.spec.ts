import { cpuMs } from '../../../test/support/cpu-time';
import { MAX_MAILBOX_LENGTH, parseMailbox } from './mailbox';

describe('parseMailbox', () => {
  it.each([
    ['hello@acme.test', 'hello@acme.test'],
    ['Acme <hello@acme.test>', 'hello@acme.test'],
    ['"Acme, Inc." <hello@acme.test>', 'hello@acme.test'],
    ['  <hello@acme.test> ', 'hello@acme.test'],
    ['J. Smith <j@acme.test>', 'j@acme.test'],
  ])('reads %j', (value, address) => {
    expect(parseMailbox(value)).toBe(address);
  });

  it.each([
    'not an address',
    'Acme <not an address>',
    'Acme <hello@acme.test',
    'Acme <hello@acme.test>\r\nBcc: x@evil.test',
    'a <b@c.d> <e@f.g>',
    'Acme, Inc <hello@acme.test>',
    'a@b.test, c@d.test',
    'Group: a@b.test;',
    '"Acme" Inc" <hello@acme.test>',
    '<>',
    'a\ud800 <a@b.test>',
    'a@b\u0000.test',
  ])('refuses %j', (value) => {
    expect(parseMailbox(value)).toBeUndefined();
  });

  it('refuses a value over the length cap without reading it', () => {
    const long = `${'a'.repeat(MAX_MAILBOX_LENGTH)}@acme.test`;
    expect(parseMailbox(long)).toBeUndefined();
  });

  it('answers at once on inputs that made the old regex backtrack, at and over the cap', () => {
    const shapes = [
      (n: number) => 'a@' + 'a.'.repeat(n / 2) + ' ',
      (n: number) => '<'.repeat(n),
      (n: number) => 'a' + ' '.repeat(n) + '<',
      (n: number) => '"'.repeat(n) + '<a@b.test>',
    ];
    const hostile = shapes.flatMap((shape) => [shape(MAX_MAILBOX_LENGTH - 12), shape(80_000)]);
    const used = cpuMs(() => {
      for (const value of hostile) expect(parseMailbox(value)).toBeUndefined();
    });
    // The old regex took seconds of CPU on these; the parser takes milliseconds. CPU time, so a
    // loaded machine's other work does not count.
    expect(used).toBeLessThan(1000);
  });
});
