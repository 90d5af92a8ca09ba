import { Logger } from '@nestjs/common';
import { REDIS_DOWN_LOG_EVERY_MS } from '../settings';

const logger = new Logger('Redis');
let lastReportAt = Number.NEGATIVE_INFINITY;
let unreported = 0;

/**
 * Every Redis client of the process (ours, BullMQ's queues and workers) reports its errors
 * here. While Redis is away each of them fails on every reconnect attempt; one line per
 * interval, without a stack trace, says what is going on, instead of a trace per retry.
 */
export function reportRedisError(source: string, error: unknown, now = Date.now()): boolean {
  if (now - lastReportAt < REDIS_DOWN_LOG_EVERY_MS) {
    unreported++;
    return false;
  }
  const more = unreported > 0 ? `; ${unreported} more Redis errors since the last report` : '';
  logger.warn(`Redis error in ${source}: ${describe(error)}; retrying${more}`);
  lastReportAt = now;
  unreported = 0;
  return true;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code)
    ? `${code} ${error.message}`
    : error.message;
}
