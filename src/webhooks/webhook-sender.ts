import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { WEBHOOK_CONCURRENCY, WEBHOOK_TIMEOUT_MS } from './webhooks.settings';
import { isPrivateAddress, PrivateAddressError, publicOnlyLookup } from './webhook-address';

/** What one attempt came to. */
export interface AttemptResult {
  ok: boolean;
  /** The HTTP status, when the endpoint answered. */
  status: number | null;
  latencyMs: number;
  /** Why it failed, in a few words (never the response body). */
  error: string | null;
}

export interface SignedMessage {
  url: string;
  /** The webhook-id: the event's id, the same on every attempt. */
  eventId: string;
  /** The payload as stored: signed and sent byte for byte. */
  payload: string;
  secret: string;
}

/** Bytes of a response read before the connection is dropped: only the status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One attempt to deliver one event, signed per the Standard Webhooks specification (the
 * `standardwebhooks` package): headers webhook-id, webhook-timestamp (the attempt's time, which
 * receivers check against replays) and webhook-signature. Redirects are not followed (a 3xx is
 * a failed attempt), and the socket connects only to public addresses (publicOnlyLookup checks
 * the address actually connected to) unless WEBHOOK_ALLOW_PRIVATE=1. Connections are kept
 * alive per process.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: WEBHOOK_CONCURRENCY }),
    https: new https.Agent({ keepAlive: true, maxSockets: WEBHOOK_CONCURRENCY }),
  };

  constructor(@Inject(CONFIG) private readonly config: HeraldConfig) {}

  onModuleDestroy(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  async attempt(message: SignedMessage): Promise<AttemptResult> {
    const started = Date.now();
    const done = (ok: boolean, status: number | null, error: string | null): AttemptResult => ({
      ok,
      status,
      latencyMs: Date.now() - started,
      error,
    });
    let url: URL;
    try {
      url = new URL(message.url);
    } catch {
      return done(false, null, 'the URL is not valid');
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const allowPrivate = this.config.webhookAllowPrivate;
    if (!allowPrivate && isIP(host) && isPrivateAddress(host)) {
      return done(false, null, new PrivateAddressError(host).message);
    }
    const now = new Date();
    const signature = new Webhook(message.secret).sign(message.eventId, now, message.payload);
    const body = Buffer.from(message.payload);
    const secure = url.protocol === 'https:';
    return new Promise<AttemptResult>((resolve) => {
      const request = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent: secure ? this.agents.https : this.agents.http,
          lookup: allowPrivate ? undefined : publicOnlyLookup,
          timeout: WEBHOOK_TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            'content-length': String(body.length),
            'user-agent': 'Herald-Webhooks/1.0',
            'webhook-id': message.eventId,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signature,
          },
        },
        (response) => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) response.destroy();
          });
          const finish = () => resolve(done(ok, status, ok ? null : describeStatus(status)));
          response.on('end', finish);
          response.on('close', finish);
          response.on('error', finish);
        },
      );
      request.on('timeout', () =>
        request.destroy(new Error(`no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`)),
      );
      request.on('error', (error: NodeJS.ErrnoException) =>
        resolve(done(false, null, describeError(error))),
      );
      request.end(body);
    });
  }
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

function describeError(error: NodeJS.ErrnoException): string {
  if (error instanceof PrivateAddressError) return error.message;
  const code = error.code ? `${error.code}: ` : '';
  return `${code}${error.message}`.slice(0, 300);
}
