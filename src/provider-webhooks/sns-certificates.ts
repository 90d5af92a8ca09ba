import { Inject, Injectable } from '@nestjs/common';
import { get } from 'node:https';
import { KeyObject, X509Certificate } from 'node:crypto';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';

/** Amazon's SNS endpoints: `https://sns.<region>.amazonaws.com/…` (and the .cn partition). */
const AMAZON_SNS_HOST = /^sns\.[a-z0-9-]{1,40}\.amazonaws\.com(\.cn)?$/;
const MAX_CERT_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** Certificates are kept this long; SNS rotates them rarely and announces a new URL. */
const CACHE_MS = 60 * 60_000;
const MAX_CACHED = 32;

/** A certificate that could not be fetched: Herald's problem (or the network's), not the sender's. */
export class CertificateUnavailable extends Error {}

/**
 * The SNS signing certificates, fetched over https from the SigningCertURL of a message,
 * and only from a URL Herald trusts: one starting with an SNS_CERT_URL_PREFIXES entry, or by
 * default any SNS endpoint of Amazon. Cached per URL (concurrent requests share one fetch).
 */
@Injectable()
export class SnsCertificates {
  private readonly cache = new Map<string, { key: Promise<KeyObject>; expiresAt: number }>();
  private readonly prefixes: string[] | undefined;

  constructor(@Inject(CONFIG) config: HeraldConfig) {
    this.prefixes = config.deliverability.providerWebhooks.snsCertUrlPrefixes;
  }

  /** Whether a URL of a message (its certificate, its SubscribeURL) points at SNS. */
  trusted(url: string): boolean {
    if (this.prefixes) return this.prefixes.some((prefix) => url.startsWith(prefix));
    try {
      const parsed = new URL(url);
      return parsed.protocol === 'https:' && !parsed.port && AMAZON_SNS_HOST.test(parsed.hostname);
    } catch {
      return false;
    }
  }

  /** The public key of the certificate at `url`; the caller checked trusted(url). */
  key(url: string): Promise<KeyObject> {
    const now = Date.now();
    const cached = this.cache.get(url);
    if (cached && cached.expiresAt > now) return cached.key;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    const key = fetchPem(url).then((pem) => new X509Certificate(pem).publicKey);
    this.cache.set(url, { key, expiresAt: now + CACHE_MS });
    // A failed fetch is not remembered: the next message tries again.
    key.catch(() => this.cache.delete(url));
    return key;
  }
}

/** GETs a small https resource (the process's CA store decides trust). */
export function fetchPem(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get(url, { timeout: FETCH_TIMEOUT_MS }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new CertificateUnavailable(`certificate fetch answered ${response.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_CERT_BYTES) {
          request.destroy(new CertificateUnavailable('certificate too large'));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    request.on('timeout', () =>
      request.destroy(new CertificateUnavailable('certificate fetch timed out')),
    );
    request.on('error', (error) =>
      reject(
        error instanceof CertificateUnavailable ? error : new CertificateUnavailable(error.message),
      ),
    );
  });
}
