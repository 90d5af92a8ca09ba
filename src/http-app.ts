import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { AppModule, AppOptions } from './app.module';
import { HeraldConfig, loadConfig } from './platform/config/config';
import { createLogger, PinoNestLogger } from './platform/logging/logger';
import { serveOpenApi } from './platform/openapi/openapi';

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
    bodyLimit: 1024 * 1024,
  });
  adapter.getInstance().addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // RFC 8058 one-click unsubscribes may arrive as multipart/form-data, which Fastify would
  // refuse with 415 (Nest already parses urlencoded forms). Kept as text: nothing reads it,
  // and a /v1 DTO still refuses a body that is not a JSON object.
  adapter
    .getInstance()
    .addContentTypeParser('multipart/form-data', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.api(config, options),
    adapter,
    {
      logger: new PinoNestLogger(logger),
    },
  );
  // Cookies are read (request.cookies) and written (reply.setCookie) by the plugin; only the
  // dashboard's session and visitor cookies exist, so nothing is signed here.
  await app.register(fastifyCookie);
  serveOpenApi(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
