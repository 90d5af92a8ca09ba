import { Logger } from '@nestjs/common';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { selfSignedCertificate } from '../platform/crypto/self-signed-certificate';
import type { SubmissionConfig } from '../platform/config/submission-config';
import { SELF_SIGNED_VALID_DAYS } from './submission.settings';

export interface SubmissionTls {
  key: string;
  cert: string;
}

/**
 * The certificate STARTTLS offers: the operator's PEM files, or one made now and signed by
 * itself. A client cannot verify a self-signed certificate by a CA, so its SHA-256 fingerprint
 * is logged for clients that pin it (or the operator sees what they told clients to accept).
 */
export async function loadSubmissionTls(
  config: SubmissionConfig,
  hostname: string,
  logger: Logger,
): Promise<SubmissionTls> {
  if (config.tls) {
    const [cert, key] = await Promise.all([
      readFile(config.tls.certFile, 'utf8'),
      readFile(config.tls.keyFile, 'utf8'),
    ]);
    logger.log(
      `SMTP submission certificate from ${config.tls.certFile}, SHA-256 ${fingerprint(cert)}`,
    );
    return { cert, key };
  }
  const made = selfSignedCertificate(hostname, { validDays: SELF_SIGNED_VALID_DAYS });
  logger.warn(
    `SMTP submission: no SUBMISSION_TLS_CERT/SUBMISSION_TLS_KEY, using a self-signed certificate made at start, SHA-256 ${fingerprint(made.cert)}`,
  );
  return { cert: made.cert, key: made.key };
}

function fingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}
