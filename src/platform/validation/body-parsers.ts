import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../errors/api-errors';
import { checkJsonShape, JSON_LIMITS } from './json-shape';

const JSON_ONLY = 'Send the body as JSON, with Content-Type: application/json.';

/**
 * The only body parsers of the HTTP app (Nest's and Fastify's defaults are removed):
 * - `application/json`: at most 1 MiB, its shape (depth, keys) checked on the text in one
 *   linear pass before Fastify's own parser (JSON.parse, refusing `__proto__` keys) runs;
 * - `multipart/form-data` on the routes that take uploads (`takesUploads`): left unread, for
 *   the handler to stream (a 100 MB CSV is never buffered); elsewhere as below;
 * - anything else: refused (400) on routes that take only JSON (the API surfaces); taken as
 *   text and left unread elsewhere (public pages: a one-click unsubscribe, RFC 8058, posts a
 *   form).
 */
export function installBodyParsers(
  fastify: FastifyInstance,
  jsonOnly: (routePath: string) => boolean,
  takesUploads: (routePath: string) => boolean = () => false,
): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const bodyLimit = JSON_LIMITS.maxBytes;
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit },
    (request, body, done) => {
      const problem = checkJsonShape(body as string);
      if (problem) done(new InvalidRequestError(problem), undefined);
      else void parseJson(request, body as string, done);
    },
  );
  fastify.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    const route = request.routeOptions.url ?? '';
    if (takesUploads(route)) done(null, undefined);
    else if (jsonOnly(route)) done(new InvalidRequestError(JSON_ONLY), undefined);
    else readText(payload, bodyLimit, done);
  });
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    if (jsonOnly(request.routeOptions.url ?? '')) {
      done(new InvalidRequestError(JSON_ONLY), undefined);
    } else {
      done(null, body);
    }
  });
}

/** What the `*` parser does with a body, for a form that is not an upload: text, within the limit. */
function readText(
  payload: NodeJS.ReadableStream,
  limit: number,
  done: (error: Error | null, body?: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  payload.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= limit) chunks.push(chunk);
  });
  payload.on('error', (error: Error) => done(error));
  payload.on('end', () => {
    if (bytes > limit) done(new InvalidRequestError('The body is larger than 1 MiB.'));
    else done(null, Buffer.concat(chunks).toString('utf8'));
  });
}
