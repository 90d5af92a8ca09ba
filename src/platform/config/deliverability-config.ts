import { ConfigError } from './config-error';

type Env = Record<string, string | undefined>;

/** Bounce handling, inbound mail and provider webhooks (README, "Bounces and complaints"). */
export interface DeliverabilityConfig {
  /**
   * INBOUND_SMTP_PORT (and INBOUND_SMTP_HOST): unset, Herald takes no inbound mail.
   * INBOUND_MAX_BYTES (default 10 MiB): the largest message it takes.
   */
  inboundSmtp: { port: number; host: string; maxBytes: number } | undefined;
  providerWebhooks: ProviderWebhookConfig;
  reputationGuard: ReputationGuardConfig;
}

/**
 * When a campaign pauses itself: its complaints or hard bounces over its delivered messages
 * past these rates, once at least `minDelivered` were delivered (fewer say too little).
 */
export interface ReputationGuardConfig {
  /** COMPLAINT_RATE_LIMIT (default 0.003: where Gmail starts refusing bulk mail). */
  complaintRateLimit: number;
  /** BOUNCE_RATE_LIMIT (default 0.05). */
  bounceRateLimit: number;
  /** RATE_GUARD_MIN_DELIVERED (default 500). */
  minDelivered: number;
}

/** A provider whose credential is unset has no webhook (its path answers 404). */
export interface ProviderWebhookConfig {
  /**
   * SNS_TOPIC_ARNS: the only topics whose messages the SES webhook takes (unset: no SES
   * webhook). Amazon's signature proves a message came from SNS, not from the operator's
   * topic: anyone can create a topic, subscribe Herald to it and publish signed bounces.
   */
  snsTopicArns: string[] | undefined;
  /**
   * SNS_CERT_URL_PREFIXES: a SigningCertURL must start with one of these; undefined means
   * any `https://sns.<region>.amazonaws.com/`.
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
      snsTopicArns: parseTopicArns(env.SNS_TOPIC_ARNS),
      snsCertUrlPrefixes: parsePrefixes(env.SNS_CERT_URL_PREFIXES),
      postmark: parsePostmark(env),
      sendgridPublicKey: nonEmpty(env.SENDGRID_WEBHOOK_PUBLIC_KEY),
      mailgunSigningKey: nonEmpty(env.MAILGUN_WEBHOOK_SIGNING_KEY),
    },
    reputationGuard: {
      complaintRateLimit: parseRate(env, 'COMPLAINT_RATE_LIMIT', 0.003),
      bounceRateLimit: parseRate(env, 'BOUNCE_RATE_LIMIT', 0.05),
      minDelivered: parseCount(env, 'RATE_GUARD_MIN_DELIVERED', 500),
    },
  };
}

/** A share between 0 and 1 (1 turns the guard off for that rate). */
function parseRate(env: Env, variable: string, fallback: number): number {
  const raw = nonEmpty(env[variable]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^(0|1)?(\.\d+)?$/.test(raw) || !(value > 0 && value <= 1)) {
    throw new ConfigError(
      variable,
      `must be a share above 0 and at most 1 (0.003 for 0.3 %), got "${raw.slice(0, 40)}"`,
    );
  }
  return value;
}

function parseCount(env: Env, variable: string, fallback: number): number {
  const raw = nonEmpty(env[variable]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || value < 1) {
    throw new ConfigError(
      variable,
      `must be a whole number of at least 1, got "${raw.slice(0, 40)}"`,
    );
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Reports and complaints are small; 10 MiB leaves room for a quoted original with images. */
const DEFAULT_INBOUND_MAX_BYTES = 10 * 1024 * 1024;

function parseInbound(env: Env): DeliverabilityConfig['inboundSmtp'] {
  const maxBytes = parseMaxBytes(env.INBOUND_MAX_BYTES);
  const raw = nonEmpty(env.INBOUND_SMTP_PORT);
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new ConfigError('INBOUND_SMTP_PORT', `must be an integer from 0 to 65535, got "${raw}"`);
  }
  return { port, host: nonEmpty(env.INBOUND_SMTP_HOST) ?? '0.0.0.0', maxBytes };
}

function parseMaxBytes(value: string | undefined): number {
  const raw = nonEmpty(value);
  if (raw === undefined) return DEFAULT_INBOUND_MAX_BYTES;
  const bytes = Number(raw);
  if (!/^\d+$/.test(raw) || bytes < 1024 || bytes > 1024 * 1024 * 1024) {
    throw new ConfigError(
      'INBOUND_MAX_BYTES',
      `must be an integer from 1024 to 1073741824, got "${raw}"`,
    );
  }
  return bytes;
}

/** `arn:<partition>:sns:<region>:<account id>:<topic name>` (FIFO topics end in `.fifo`). */
const TOPIC_ARN = /^arn:aws(-[a-z]+)*:sns:[a-z0-9-]{1,40}:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

function parseTopicArns(raw: string | undefined): string[] | undefined {
  if (nonEmpty(raw) === undefined) return undefined;
  const arns = raw!
    .split(',')
    .map((arn) => arn.trim())
    .filter(Boolean);
  for (const arn of arns) {
    if (!TOPIC_ARN.test(arn)) {
      throw new ConfigError(
        'SNS_TOPIC_ARNS',
        `entries must be SNS topic ARNs (arn:aws:sns:<region>:<account>:<topic>), got "${arn.slice(0, 300)}"`,
      );
    }
  }
  return arns;
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
