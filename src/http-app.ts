import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { AppModule, AppOptions } from './app.module';
import { surfaceOf } from './auth/surface';
import { HeraldConfig, loadConfig } from './platform/config/config';
import { fastifyTrustProxy } from './platform/config/trust-proxy';
import { answerClientError, answerFrameworkError } from './platform/errors/framework-errors';
import { createLogger, PinoNestLogger } from './platform/logging/logger';
import { HeraldMetrics } from './platform/metrics/herald-metrics';
import { serveOpenApi } from './openapi/openapi';
import { installBodyParsers } from './platform/validation/body-parsers';
import { JSON_LIMITS } from './platform/validation/json-shape';
import { refuseInvalidUrlText } from './platform/validation/url-text';

/** Routes whose handler streams a multipart upload itself (CSV imports). */
const UPLOAD_ROUTES = new Set(['/v1/imports', '/dashboard/api/imports']);

/**
 * Builds the HTTP API on Fastify (its speed matters on the list and send hot paths) with
 * pino request logging, request ids (echoed as X-Request-Id), cookies and the OpenAPI
 * document. Which caller may reach which route is RouteGuard's decision (src/auth).
 * Not yet listening: main.ts listens, tests use the instance directly.
 */
export async function createHttpApp(
  config: HeraldConfig = loadConfig(),
  options: AppOptions = { workers: true },
): Promise<NestFastifyApplication> {
  const logger = createLogger(config.logLevel);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: JSON_LIMITS.maxBytes,
    // request.ip, which every per-address limit counts, is the socket's peer unless
    // TRUST_PROXY names the proxies whose X-Forwarded-For to believe.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Errors met before any route runs get the same envelope as the rest.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  adapter.getInstance().addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // HEAD on a GET route is that GET for the guard, the rate limit and the handler; Fastify's
  // HEAD route drops the body.
  adapter.getInstance().addHook('onRequest', (request, _reply, done) => {
    if (request.raw.method === 'HEAD') request.raw.method = 'GET';
    done();
  });
  installBodyParsers(
    adapter.getInstance(),
    (route) => surfaceOf(route) !== undefined,
    (route) => UPLOAD_ROUTES.has(route),
  );
  adapter.getInstance().addHook('preValidation', refuseInvalidUrlText);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.api(config, options),
    adapter,
    {
      logger: new PinoNestLogger(logger),
      // Only the parsers installed above: Nest's own would accept forms on /v1.
      bodyParser: false,
    },
  );
  // Every answer is counted by its route's pattern (never the raw URL: ids would make a series
  // per resource); requests that matched no route share one label.
  const metrics = app.get(HeraldMetrics);
  adapter.getInstance().addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.http(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // Cookies are read (request.cookies) and written (reply.setCookie) by the plugin; only the
  // dashboard's session and visitor cookies exist, so nothing is signed here.
  await app.register(fastifyCookie);
  serveOpenApi(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
