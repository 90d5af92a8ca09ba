import { Logger } from '@nestjs/common';
import { nameOutageStore, reportStoreError } from './store-outage-log';

describe('reportStoreError', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
    code: 'ECONNREFUSED',
  });
  let lines: string[];
  let warn: jest.SpyInstance;
  // The log's interval is module state: each test starts well past the last one's reports.
  let start = 1_000_000_000;

  beforeEach(() => {
    lines = [];
    start += 1_000_000;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      lines.push(String(message));
    });
  });

  afterEach(() => {
    warn.mockRestore();
    nameOutageStore('Redis');
  });

  it('writes one line per interval, without a stack, and counts what it held back', () => {
    expect(reportStoreError('queue a', refused, start)).toBe(true);
    for (let i = 1; i <= 50; i++) reportStoreError('worker b', refused, start + i * 100);
    expect(reportStoreError('queue a', refused, start + 31_000)).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('Redis error in queue a: connect ECONNREFUSED 127.0.0.1:1; retrying');
    expect(lines[1]).toContain('50 more Redis errors since the last report');
    expect(lines.join('\n')).not.toContain('    at ');
  });

  it('names PostgreSQL when the queues are on the PostgreSQL store', () => {
    nameOutageStore('PostgreSQL');
    reportStoreError('the import worker', refused, start);
    reportStoreError('the import worker', refused, start + 100);
    reportStoreError('the import worker', refused, start + 31_000);
    expect(lines).toEqual([
      'PostgreSQL error in the import worker: connect ECONNREFUSED 127.0.0.1:1; retrying',
      'PostgreSQL error in the import worker: connect ECONNREFUSED 127.0.0.1:1; retrying; 1 more PostgreSQL errors since the last report',
    ]);
  });
});
