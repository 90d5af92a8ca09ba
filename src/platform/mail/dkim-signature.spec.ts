import { generateKeyPairSync } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import { composeMime } from './mime-composer';
import { DkimKey, dkimSigned } from './dkim-signature';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const key: DkimKey = { domainName: 'Acme.Example', keySelector: 'herald1', privateKey };

/** What nodemailer's own signer makes of the same bytes and key. */
async function nodemailerSigned(raw: Buffer, dkim: DkimKey): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of new DKIM(dkim).sign(raw)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');

const composed = composeMime(
  {
    from: 'Acme News <news@acme.example>',
    to: 'ada@example.com',
    subject: 'News for Ada — ünïcode',
    text: 'Hello Ada,\n\nThis month  at\tAcme: things.   \n\n\n',
    html: `<p>${'Long line of html with spaces   and tabs\t\t. '.repeat(40)}</p>`,
    headers: {
      'List-Unsubscribe': '<https://herald.example/unsubscribe/abc>, <mailto:u@bounce.example>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'X-Herald-Campaign': 'c1',
    },
    messageId: '<c1.s1@acme.example>',
  },
  Date.UTC(2026, 0, 2, 3, 4, 5),
)!.raw;

const cases: [string, Buffer][] = [
  ['a composed campaign message', composed],
  [
    'folded headers, repeated fields and odd whitespace',
    crlf([
      'From:  Ada \t <ada@acme.example>',
      'Subject: first',
      'Subject: second,',
      '\tfolded  onto a new line',
      'X-Other: not signed',
      'To: bob@example.com',
      '',
      'body  with   runs \t of space   ',
      '',
      '  indented',
      'bare\rcr and a trailing cr\r',
      '',
      '',
    ]),
  ],
  [
    'bare LF line ends',
    Buffer.from('From: a@acme.example\nSubject: hi\n\nline one \nline two\n\n'),
  ],
  ['an empty body', crlf(['From: a@acme.example', 'Subject: hi', '', ''])],
  ['a body without a final line break', crlf(['From: a@acme.example', '', 'no end'])],
  ['headers only', crlf(['From: a@acme.example', 'Subject: hi'])],
  ['a body of empty lines', crlf(['From: a@acme.example', '', '', '', ''])],
];

describe('dkimSigned', () => {
  it.each(cases)('signs %s byte for byte as nodemailer does', async (_name, raw) => {
    const ours = await dkimSigned(raw, key);
    const theirs = await nodemailerSigned(raw, key);
    expect(ours.toString('latin1')).toBe(theirs.toString('latin1'));
  });

  it('cleans a selector and domain of what would end their tags, as nodemailer does', async () => {
    const odd = { ...key, keySelector: 'sel;x=1\tz', domainName: 'bücher.example' };
    const ours = await dkimSigned(composed, odd);
    expect(ours.toString('latin1')).toBe(
      (await nodemailerSigned(composed, odd)).toString('latin1'),
    );
    expect(ours.toString('latin1')).toContain('s=selx1z;');
  });

  it('leaves the message unsigned when the key cannot sign, as nodemailer does', async () => {
    const broken = { ...key, privateKey: 'not a key' };
    expect((await dkimSigned(composed, broken)).equals(composed)).toBe(true);
    expect((await nodemailerSigned(composed, broken)).equals(composed)).toBe(true);
  });
});
