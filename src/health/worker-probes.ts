import { Logger } from '@nestjs/common';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { MetricsConfig } from '../platform/config/config';
import { HeraldMetrics } from '../platform/metrics/herald-metrics';
import { mayReadMetrics } from './metrics-access';
import { ReadinessProbe } from './readiness';

/**
 * A worker process has no HTTP API, so its probes and metrics get a small listener of their own
 * on METRICS_PORT: GET /health/live, /health/ready and /metrics, answered as the API answers
 * them. Plain node:http: a worker does not load Fastify or the API's modules for three routes.
 */
export class WorkerProbes {
  private readonly logger = new Logger(WorkerProbes.name);

  private constructor(private readonly server: Server) {}

  static async listen(
    port: number,
    config: MetricsConfig,
    readiness: ReadinessProbe,
    metrics: HeraldMetrics,
  ): Promise<WorkerProbes> {
    const server = createServer((request, response) => {
      void answer(request, response, config, readiness, metrics);
    });
    server.listen(port, '0.0.0.0');
    await once(server, 'listening');
    return new WorkerProbes(server);
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.logger.debug('probe listener closed');
  }
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  config: MetricsConfig,
  readiness: ReadinessProbe,
  metrics: HeraldMetrics,
): Promise<void> {
  const json = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  };
  try {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      json(404, envelope('not_found', 'Only GET routes here.'));
    } else if (path === '/health/live') {
      json(200, { status: 'ok' });
    } else if (path === '/health/ready') {
      const { ready, database, redis, stopping } = await readiness.check();
      if (ready) json(200, { status: 'ok' });
      else json(503, { status: stopping ? 'stopping' : 'unavailable', database, redis });
    } else if (path === '/metrics') {
      if (!mayReadMetrics(config, request.headers.authorization)) {
        json(
          401,
          envelope('invalid_credential', 'GET /metrics takes METRICS_TOKEN as a bearer token.'),
        );
        return;
      }
      const { contentType, body } = await metrics.render();
      response.writeHead(200, { 'content-type': contentType });
      response.end(body);
    } else {
      json(404, envelope('not_found', 'No such route.'));
    }
  } catch {
    if (!response.headersSent) json(500, envelope('internal_error', 'The probe failed.'));
    else response.destroy();
  }
}

/** The API's error envelope: `{ error: { code, message } }`. */
function envelope(code: string, message: string) {
  return { error: { code, message, details: [] } };
}
