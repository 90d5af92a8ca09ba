import { Writable } from 'node:stream';
import pino from 'pino';
import { logRequest, withoutQueryValues } from './logger';

describe('request log lines', () => {
  it('keep the path and the parameter names, never the values', () => {
    expect(withoutQueryValues('/dashboard/api/subscribers?q=ada%40example.com&limit=25')).toBe(
      '/dashboard/api/subscribers?q=…&limit=…',
    );
    expect(withoutQueryValues('/v1/subscribers')).toBe('/v1/subscribers');
    expect(withoutQueryValues('/v1/x?')).toBe('/v1/x?');
  });

  it('write no email from a query into the log', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ serializers: { req: logRequest } }, sink);
    logger.info({
      req: { method: 'GET', url: '/dashboard/api/subscribers?q=ada@example.com', ip: '::1' },
    });
    expect(lines.join('')).toContain('/dashboard/api/subscribers?q=…');
    expect(lines.join('')).not.toContain('ada@example.com');
  });
});
