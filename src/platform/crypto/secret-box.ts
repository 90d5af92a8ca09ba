import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets Herald must read back later (DKIM private keys), where a keyed hash will
 * not do. AES-256-GCM under a key derived from the master secret with HKDF-SHA256 and a
 * purpose label, so each use has its own key and none is the master secret itself. Every
 * ciphertext is bound to `context` (e.g. its row id) as associated data: a value copied onto
 * another row does not decrypt there.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(masterSecret: string, purpose: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', masterSecret, 'herald-secret-box', `herald:${purpose}`, 32),
    );
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Throws when the value was not sealed under this key and context, or was altered. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, body, ...rest] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined || rest.length > 0) {
      throw new Error('Not a sealed value of this format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}
