import { Logger } from '@nestjs/common';
import { setDefaultBackendFactory } from 'bullmq';
import type { HeraldConfig } from '../config/config';
import { reportStoreError } from '../logging/store-outage-log';
import { queueConnection } from './queue-backend';

describe('queueConnection', () => {
  afterEach(() => setDefaultBackendFactory(undefined));

  it('has the outage log name the store the queues were put on', () => {
    const lines: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      lines.push(String(message));
    });
    // Reports an interval apart (the log writes one line per interval).
    let at = 2_000_000_000_000;
    const report = () => reportStoreError('the import worker', new Error('gone'), (at += 60_000));
    try {
      queueConnection({
        redis: undefined,
        database: { directUrl: 'postgresql://127.0.0.1:1/none' },
      } as unknown as HeraldConfig);
      report();
      queueConnection({
        redis: { kind: 'single', host: '127.0.0.1', port: 1, tls: false },
        queuePrefix: 'herald',
      } as unknown as HeraldConfig);
      report();
    } finally {
      warn.mockRestore();
    }
    expect(lines).toEqual([
      'PostgreSQL error in the import worker: gone; retrying',
      'Redis error in the import worker: gone; retrying',
    ]);
  });
});
