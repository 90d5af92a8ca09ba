import { timingSafeEqual } from 'node:crypto';
import { MetricsConfig } from '../platform/config/config';

/**
 * Whether a request may read /metrics: anyone when METRICS_TOKEN is unset, else only
 * `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time).
 */
export function mayReadMetrics(config: MetricsConfig, authorization: string | undefined): boolean {
  if (config.token === undefined) return true;
  const presented = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  if (presented === undefined) return false;
  const expected = Buffer.from(config.token);
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
