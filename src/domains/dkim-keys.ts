import { Inject, Injectable } from '@nestjs/common';
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { SecretBox } from '../platform/crypto/secret-box';

const generateRsa = promisify(generateKeyPair);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export interface DkimKeyPair {
  /** The DKIM record's p= value: base64 of the DER SubjectPublicKeyInfo. */
  publicKey: string;
  /** PKCS#8 PEM, as nodemailer takes it. */
  privateKeyPem: string;
}

/**
 * A fresh RSA-2048 pair (RFC 8301's floor for signing keys; 2048 bits still fits the DNS
 * TXT record every provider accepts). Generated on libuv's thread pool, off the event loop.
 */
export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}

/**
 * `herald-` and 8 random base32 characters. Random rather than fixed, so two accounts adding
 * the same domain (each with its own key) and a rotation's next key never share a DNS name.
 */
export function newSelector(): string {
  const bytes = randomBytes(8);
  let suffix = '';
  for (const byte of bytes) suffix += BASE32[byte & 31];
  return `herald-${suffix}`;
}

/**
 * Seals DKIM private keys for storage and opens them for signing. Each key is bound to its
 * row id, so a sealed key copied to another row (another account's domain) does not open.
 */
@Injectable()
export class DkimKeyVault {
  private readonly box: SecretBox;

  constructor(@Inject(CONFIG) config: HeraldConfig) {
    this.box = new SecretBox(config.secret, 'dkim-private-key');
  }

  seal(privateKeyPem: string, keyId: string): string {
    return this.box.seal(privateKeyPem, keyId);
  }

  open(sealed: string, keyId: string): string {
    return this.box.open(sealed, keyId);
  }
}
