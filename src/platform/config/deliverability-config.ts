import { ConfigError } from './config-error';

type Env = Record<string, string | undefined>;

/** Bounce handling, inbound mail and provider webhooks (README, "Bounces and complaints"). */
export interface DeliverabilityConfig {
  /** INBOUND_SMTP_PORT (and INBOUND_SMTP_HOST): unset, Herald takes no inbound mail. */
  inboundSmtp: { port: number; host: string } | undefined;
  providerWebhooks: ProviderWebhookConfig;
}

/** A provider whose credential is unset has no webhook (its path answers 404). */
export interface ProviderWebhookConfig {
  /**
   * SNS_CERT_URL_PREFIXES: a SigningCertURL must start with one of these; undefined means
   * any `https://sns.<region>.amazonaws.com/`. So the SES webhook is always on: its
   * credential is Amazon's signature, checked against Amazon's certificate.
   */
  snsCertUrlPrefixes: string[] | undefined;
  postmark: { user: string; password: string } | undefined;
  /** SENDGRID_WEBHOOK_PUBLIC_KEY: the base64 ECDSA public key as SendGrid shows it. */
  sendgridPublicKey: string | undefined;
  mailgunSigningKey: string | undefined;
}

export function parseDeliverability(env: Env): DeliverabilityConfig {
  return {
    inboundSmtp: parseInbound(env),
    providerWebhooks: {
      snsCertUrlPrefixes: parsePrefixes(env.SNS_CERT_URL_PREFIXES),
      postmark: parsePostmark(env),
      sendgridPublicKey: nonEmpty(env.SENDGRID_WEBHOOK_PUBLIC_KEY),
      mailgunSigningKey: nonEmpty(env.MAILGUN_WEBHOOK_SIGNING_KEY),
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function parseInbound(env: Env): DeliverabilityConfig['inboundSmtp'] {
  const raw = nonEmpty(env.INBOUND_SMTP_PORT);
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new ConfigError('INBOUND_SMTP_PORT', `must be an integer from 0 to 65535, got "${raw}"`);
  }
  return { port, host: nonEmpty(env.INBOUND_SMTP_HOST) ?? '0.0.0.0' };
}

function parsePrefixes(raw: string | undefined): string[] | undefined {
  if (nonEmpty(raw) === undefined) return undefined;
  const prefixes = raw!
    .split(',')
    .map((prefix) => prefix.trim())
    .filter(Boolean);
  for (const prefix of prefixes) {
    let url: URL;
    try {
      url = new URL(prefix);
    } catch {
      throw new ConfigError('SNS_CERT_URL_PREFIXES', `holds "${prefix}", which is not a URL`);
    }
    // The prefix must pin the host: "https://sns." alone would admit any attacker's domain.
    if (url.protocol !== 'https:' || !prefix.slice('https://'.length).includes('/')) {
      throw new ConfigError(
        'SNS_CERT_URL_PREFIXES',
        `entries must be https URLs ending the host with "/", got "${prefix}"`,
      );
    }
  }
  return prefixes;
}

function parsePostmark(env: Env): ProviderWebhookConfig['postmark'] {
  const user = nonEmpty(env.POSTMARK_WEBHOOK_USER);
  const password = nonEmpty(env.POSTMARK_WEBHOOK_PASSWORD);
  if (!user && !password) return undefined;
  if (!user || !password) {
    throw new ConfigError(
      user ? 'POSTMARK_WEBHOOK_PASSWORD' : 'POSTMARK_WEBHOOK_USER',
      'must be set together with its pair',
    );
  }
  return { user, password };
}
