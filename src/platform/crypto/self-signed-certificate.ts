import { generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * Self-signed X.509 certificates made with node:crypto alone (it can sign but has no
 * certificate builder, so the DER is assembled here): the certificate SMTP submission offers
 * for STARTTLS when none is configured, and the certificates tests serve.
 */
export interface SelfSignedCertificate {
  privateKey: KeyObject;
  /** PEM of the certificate. */
  cert: string;
  /** PEM of the private key (for a TLS server). */
  key: string;
}

export function selfSignedCertificate(
  commonName: string,
  options: { ipAddresses?: string[]; validDays?: number } = {},
): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  const algorithm = seq(oid('1.2.840.113549.1.1.11'), tlv(0x05, Buffer.alloc(0))); // sha256WithRSA
  const now = Date.now();
  const extensions = options.ipAddresses?.length
    ? [
        tlv(
          0xa3,
          seq(
            seq(
              oid('2.5.29.17'), // subjectAltName
              tlv(
                0x04,
                seq(
                  ...options.ipAddresses.map((ip) =>
                    tlv(0x87, Buffer.from(ip.split('.').map(Number))),
                  ),
                ),
              ),
            ),
          ),
        ),
      ]
    : [];
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(randomBytes(8)),
    algorithm,
    name,
    seq(
      utcTime(new Date(now - 60_000)),
      utcTime(new Date(now + (options.validDays ?? 1) * 86_400_000)),
    ),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    ...extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return {
    privateKey,
    cert: pem('CERTIFICATE', der),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function pem(label: string, der: Buffer): string {
  const lines = der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return `-----BEGIN ${label}-----\n${lines}\n-----END ${label}-----\n`;
}

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  const header =
    length < 0x80
      ? Buffer.from([tag, length])
      : (() => {
          const bytes: number[] = [];
          for (let n = length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
          return Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
        })();
  return Buffer.concat([header, content]);
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** A non-negative INTEGER: a leading zero byte keeps the high bit from reading as a sign. */
function integer(bytes: Buffer): Buffer {
  return tlv(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const part of rest) {
    const chunk: number[] = [];
    for (let n = part; ; n >>= 7) {
      chunk.unshift((n & 0x7f) | (chunk.length ? 0x80 : 0));
      if (n < 0x80) break;
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const iso = date.toISOString(); // 2024-05-01T10:00:00.000Z → 240501100000Z
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}
