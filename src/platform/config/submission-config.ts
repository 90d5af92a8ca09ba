import { ConfigError } from './config-error';

type Env = Record<string, string | undefined>;

/**
 * SMTP submission (README, "Send over SMTP"). SUBMISSION_SMTP_PORT unset: no listener.
 * SUBMISSION_SMTP_HOST (default 0.0.0.0) is the address it binds. SUBMISSION_TLS_CERT and
 * SUBMISSION_TLS_KEY are PEM files, both or neither (neither: a self-signed certificate is
 * made at start). SUBMISSION_MAX_BYTES (default 10 MiB) is the largest message it takes.
 */
export interface SubmissionConfig {
  port: number;
  host: string;
  tls: { certFile: string; keyFile: string } | undefined;
  maxBytes: number;
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export function parseSubmission(env: Env): SubmissionConfig | undefined {
  const raw = nonEmpty(env.SUBMISSION_SMTP_PORT);
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new ConfigError(
      'SUBMISSION_SMTP_PORT',
      `must be an integer from 0 to 65535, got "${raw}"`,
    );
  }
  const certFile = nonEmpty(env.SUBMISSION_TLS_CERT);
  const keyFile = nonEmpty(env.SUBMISSION_TLS_KEY);
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ConfigError(
      certFile ? 'SUBMISSION_TLS_KEY' : 'SUBMISSION_TLS_CERT',
      'must be set together with its pair (PEM files of the certificate and its key)',
    );
  }
  return {
    port,
    host: nonEmpty(env.SUBMISSION_SMTP_HOST) ?? '0.0.0.0',
    tls: certFile && keyFile ? { certFile, keyFile } : undefined,
    maxBytes: parseMaxBytes(env.SUBMISSION_MAX_BYTES),
  };
}

function parseMaxBytes(value: string | undefined): number {
  const raw = nonEmpty(value);
  if (raw === undefined) return DEFAULT_MAX_BYTES;
  const bytes = Number(raw);
  if (!/^\d+$/.test(raw) || bytes < 1024 || bytes > 100 * 1024 * 1024) {
    throw new ConfigError(
      'SUBMISSION_MAX_BYTES',
      `must be an integer from 1024 to 104857600, got "${raw}"`,
    );
  }
  return bytes;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
