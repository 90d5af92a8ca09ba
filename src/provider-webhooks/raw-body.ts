import { Transform, TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received, kept only on /webhooks/ routes. */
    webhookRawBody?: Buffer[];
  }
}

export const WEBHOOKS_PREFIX = '/webhooks/';

/**
 * Keeps a copy of the body of provider webhooks while Fastify parses it as usual (a signature
 * may cover the exact bytes). The copy is bounded by Fastify's body limit like the parse.
 */
export function keepWebhookRawBodies(fastify: FastifyInstance): void {
  fastify.addHook('preParsing', async (request, _reply, payload) => {
    if (!request.url.startsWith(WEBHOOKS_PREFIX)) return payload;
    const chunks: Buffer[] = [];
    request.webhookRawBody = chunks;
    const copy = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
        chunks.push(chunk);
        callback(null, chunk);
      },
    });
    payload.on('error', (error) => copy.destroy(error));
    return payload.pipe(copy);
  });
}
