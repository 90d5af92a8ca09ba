import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver got it, and whether its signature verified. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The verified payload; undefined when verification failed. */
  event?: { type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * A webhook endpoint on loopback that verifies every request with the `standardwebhooks`
 * package, as an account's own system would, and answers 200 (or `status`). It can be taken
 * down (the port refuses connections) and brought back up on the same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The status answered to every request. */
  status = 200;
  secret = '';
  private server: Server | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Verified events of a type. */
  events(type: string) {
    return this.received.filter((r) => r.event?.type === type).map((r) => r.event!);
  }

  async start(): Promise<this> {
    const server = createServer((request, response) => {
      void readBody(request).then((body) => {
        const headers = {
          'webhook-id': String(request.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
        };
        let event: ReceivedWebhook['event'];
        try {
          event = new Webhook(this.secret).verify(body, headers) as ReceivedWebhook['event'];
        } catch {
          event = undefined;
        }
        this.received.push({
          id: headers['webhook-id'],
          timestamp: headers['webhook-timestamp'],
          signature: headers['webhook-signature'],
          body,
          event,
        });
        response.writeHead(this.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Down: the port refuses connections until start() again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
