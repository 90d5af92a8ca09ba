import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { composeMime, MimeContent } from './mime-composer';
import { encodeText, transferEncodingOf } from './transfer-encoding';

/** The same content composed by nodemailer itself, as MailTransport did before. */
async function byNodemailer(content: MimeContent, dkim?: DkimKey): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const info = (await transport.sendMail({
    ...content,
    html: content.html ?? undefined,
    text: content.text ?? undefined,
    dkim,
  })) as { message: Buffer };
  return info.message;
}

/** Composed by composeMime, then signed and serialised by nodemailer as MailTransport does. */
async function byComposer(content: MimeContent, dkim?: DkimKey): Promise<Buffer> {
  const composed = composeMime(content);
  if (!composed) throw new Error('not composed');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const info = (await transport.sendMail({
    raw: composed.raw,
    messageId: content.messageId,
    envelope: { from: composed.fromAddress, to: content.to },
    dkim,
  })) as { message: Buffer };
  return info.message;
}

interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

const base: MimeContent = {
  from: 'Acme News <news@acme.test>',
  to: 'ada@example.com',
  subject: 'News for Ada',
  text: 'Hello Ada,\n\nThis month at Acme: things.\n\nUnsubscribe: https://herald.test/unsubscribe/t',
  html: '<html><body><p>Hello Ada,</p><p><a href="https://herald.test/t/click/abc?u=https%3A%2F%2Facme.test&amp;s=x">Acme</a></p></body></html>',
  headers: {
    'List-Unsubscribe': `<https://herald.test/unsubscribe/${'A'.repeat(64)}.${'B'.repeat(22)}>, <mailto:u-${'a'.repeat(61)}@bounces.herald.test?subject=unsubscribe>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    'x-herald-campaign': '0199aaaa-0000-7000-8000-000000000001',
  },
  messageId: '<0199aaaa.0199bbbb@acme.test>',
};

/** Messages that take each branch: encodings, header encodings, one part or two. */
const CASES: Record<string, Partial<MimeContent>> = {
  'a campaign message (text 7bit, html quoted-printable)': {},
  'a subject and a name outside ASCII': {
    from: 'Zoë «Café» <news@acme.test>',
    subject:
      'Nouvelles pour Zoë — une très longue ligne de sujet qui doit être pliée par le composeur',
  },
  'a subject with quotes, an encoded-word lookalike and a tab': {
    subject: 'Say "hi" =?utf-8?q?x?= to\tAda',
  },
  'a long ASCII subject that folds': { subject: 'word '.repeat(40).trim() },
  'text with long lines and trailing blanks (quoted-printable)': {
    text: `${'x'.repeat(200)} \r\nline with tab\t\nend=equals \n.dot line\n\n`,
  },
  'mostly non-Latin text (base64)': {
    text: '日本語のテキスト。'.repeat(40),
    html: '<p>Привет, мир! Это письмо на русском языке.</p>'.repeat(10),
  },
  'emoji, unpaired surrogates and control characters': {
    text: 'Party 🎉 time \ud800 lone \u0001 control and é at the end é',
    html: `<p>${'🎉'.repeat(60)}</p>`,
  },
  'html only': { text: null },
  'text only': { html: null },
  'an address with an upper-case domain and one outside ASCII': { to: 'Ada@Example.COM' },
  'an internationalised domain': { to: 'ada@bücher.example' },
  'a text line that looks like a boundary': { text: 'before\n----_Herald=_\nafter' },
  'a header whose value is blank': { headers: { 'X-Empty': '  ', 'X-Kept': 'kept' } },
};

function contentOf(overrides: Partial<MimeContent>): MimeContent {
  return { ...base, ...overrides };
}

/** The header lines (unfolded) by name, as written. */
function headerLines(raw: Buffer): Map<string, string[]> {
  const head = raw
    .toString('utf8')
    .split('\r\n\r\n')[0]
    .replace(/\r\n[ \t]/g, ' ');
  const lines = new Map<string, string[]>();
  for (const line of head.split('\r\n')) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    lines.set(name, [...(lines.get(name) ?? []), line]);
  }
  return lines;
}

describe('composeMime against nodemailer', () => {
  for (const [name, overrides] of Object.entries(CASES)) {
    it(`reads the same as nodemailer's own message: ${name}`, async () => {
      const content = contentOf(overrides);
      const [theirs, ours] = await Promise.all([byNodemailer(content), byComposer(content)]);
      const [a, b] = await Promise.all([simpleParser(theirs), simpleParser(ours)]);
      expect(b.subject).toBe(a.subject);
      expect(b.from).toEqual(a.from);
      expect(b.to).toEqual(a.to);
      expect(b.messageId).toBe(a.messageId);
      expect(b.text).toBe(a.text);
      expect(b.html).toBe(a.html);
      const names = (parsed: typeof a) =>
        [...parsed.headers.keys()].filter((key) => !['date', 'content-type'].includes(key)).sort();
      expect(names(b)).toEqual(names(a));
      for (const key of names(a)) expect(b.headers.get(key)).toEqual(a.headers.get(key));
      // Byte for byte the same header lines, except what is per message by design.
      const [theirLines, ourLines] = [headerLines(theirs), headerLines(ours)];
      for (const key of theirLines.keys()) {
        if (['date', 'content-type', 'content-transfer-encoding', ''].includes(key)) continue;
        expect(ourLines.get(key)).toEqual(theirLines.get(key));
      }
      // The same transfer encoding per part.
      const encodings = (raw: Buffer) =>
        [...raw.toString('utf8').matchAll(/^Content-Transfer-Encoding: (.*)$/gim)].map(
          (match) => match[1],
        );
      expect(encodings(ours)).toEqual(encodings(theirs));
      // No line longer than 998 bytes anywhere, none past 76 in an encoded part.
      for (const line of ours.toString('utf8').split('\r\n')) {
        expect(Buffer.byteLength(line)).toBeLessThanOrEqual(998);
      }
    });
  }

  it('verifies when signed with DKIM, and fails when a byte of the body changes', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key: DkimKey = {
      domainName: 'acme.test',
      keySelector: 'herald-1',
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
    const resolver = (name: string, type: string) => {
      if (type === 'TXT' && name === 'herald-1._domainkey.acme.test') {
        return Promise.resolve([[record]]);
      }
      return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    };
    const verdict = async (raw: Buffer) =>
      ((await dkimVerify(raw, { resolver })) as { results: { status: { result: string } }[] })
        .results[0].status.result;
    for (const overrides of Object.values(CASES)) {
      const signed = await byComposer(contentOf(overrides), key);
      expect(await verdict(signed)).toBe('pass');
    }
    const signed = await byComposer(base, key);
    const tampered = Buffer.from(signed.toString('utf8').replace('Hello Ada', 'Hello Bob'));
    // mailauth calls a body hash mismatch `neutral`: anything but a pass.
    expect(await verdict(tampered)).not.toBe('pass');
  });

  it('leaves to nodemailer what it does not compose: no content, an empty part, a standard header', () => {
    expect(composeMime(contentOf({ html: null, text: null }))).toBeUndefined();
    expect(composeMime(contentOf({ text: '' }))).toBeUndefined();
    expect(composeMime(contentOf({ headers: { subject: 'Other' } }))).toBeUndefined();
    expect(composeMime(contentOf({ from: 'no address here' }))).toBeUndefined();
  });

  it('never lets a part carry the boundary', () => {
    const first = composeMime(base)!.raw.toString('utf8');
    const boundary = /boundary="([^"]+)"/.exec(first)![1];
    const next = boundary.replace(/_(\d+)$/, (_, n: string) => `_${Number(n) + 1}`);
    const raw = composeMime(contentOf({ text: `a\n--${next}\nb` }))!.raw.toString('utf8');
    const used = /boundary="([^"]+)"/.exec(raw)![1];
    expect(used).not.toBe(next);
    expect(raw.split(`--${used}`)).toHaveLength(4);
  });
});

describe('transfer encodings', () => {
  const decodeQp = (encoded: string) =>
    Buffer.from(
      encoded
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');

  it('quoted-printable: round trips, lines of at most 76, blanks before a break escaped', () => {
    const samples = [
      `${'a'.repeat(300)}`,
      `${'é'.repeat(100)} \n\t\n`,
      'x='.repeat(100),
      `${'🎉'.repeat(30)}\r\n${' '.repeat(80)}`,
      Array.from({ length: 2000 }, (_, i) => String.fromCharCode((i * 7919) % 0x3000)).join(''),
    ];
    for (const sample of samples) {
      const encoded = encodeText(sample, 'quoted-printable');
      for (const line of encoded.split('\r\n')) {
        expect(line.length).toBeLessThanOrEqual(76);
        expect(line).not.toMatch(/[ \t]$/);
        expect(line).toMatch(/^[\x20-\x7e\t]*$/);
      }
      const expected = Buffer.from(sample, 'utf8')
        .toString('utf8')
        .replace(/\r\n|\r|\n/g, '\r\n');
      expect(decodeQp(encoded)).toBe(expected);
    }
  });

  it('base64: lines of 76, decodes to the UTF-8 text', () => {
    const text = '日本語'.repeat(100);
    const encoded = encodeText(text, 'base64');
    expect(encoded.split('\r\n').every((line) => line.length <= 76)).toBe(true);
    expect(Buffer.from(encoded.replace(/\r\n/g, ''), 'base64').toString('utf8')).toBe(text);
  });

  it('picks the encoding nodemailer picks', () => {
    expect(transferEncodingOf('Hello\nworld')).toBe('7bit');
    expect(transferEncodingOf('x'.repeat(77))).toBe('quoted-printable');
    expect(transferEncodingOf('Zoë')).toBe('quoted-printable');
    expect(transferEncodingOf('日本語')).toBe('base64');
    expect(transferEncodingOf('a\u0001')).toBe('base64');
  });
});
