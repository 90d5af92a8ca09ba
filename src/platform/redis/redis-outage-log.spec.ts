import { Logger } from '@nestjs/common';
import { reportRedisError } from './redis-outage-log';

describe('reportRedisError', () => {
  it('writes one line per interval, without a stack, and counts what it held back', () => {
    const lines: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      lines.push(String(message));
    });
    try {
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
        code: 'ECONNREFUSED',
      });
      const start = 1_000_000_000;
      expect(reportRedisError('queue a', refused, start)).toBe(true);
      for (let i = 1; i <= 50; i++) reportRedisError('worker b', refused, start + i * 100);
      expect(reportRedisError('queue a', refused, start + 31_000)).toBe(true);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('Redis error in queue a: connect ECONNREFUSED 127.0.0.1:1; retrying');
      expect(lines[1]).toContain('50 more Redis errors since the last report');
      expect(lines.join('\n')).not.toContain('    at ');
    } finally {
      warn.mockRestore();
    }
  });
});
