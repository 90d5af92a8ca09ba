import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { LogLevel } from '../config/config';

/** One pino logger per process: JSON lines on stdout, shared by Fastify and Nest. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'herald' },
    // Authorization headers must never reach a log line.
    redact: ['req.headers.authorization', 'req.headers.cookie'],
  });
}

/** Routes Nest's own logging (bootstrap, Logger instances) into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.write('info', message, context);
  }
  error(message: unknown, ...rest: unknown[]) {
    const context = typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    this.write('error', message, context);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('trace', message, context);
  }

  private write(level: pino.Level, message: unknown, context?: string) {
    if (typeof message === 'object' && message !== null) {
      this.logger[level]({ context, ...message });
    } else {
      this.logger[level]({ context }, String(message));
    }
  }
}
