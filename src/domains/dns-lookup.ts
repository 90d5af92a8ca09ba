import { Inject, Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { MxLookup, TxtLookup } from './record-checks';

/** Answers that mean "no such record", as opposed to "could not find out". */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * DNS queries for sender-domain checks, through node:dns's resolver (c-ares: asynchronous,
 * never blocks the event loop) at DNS_SERVERS, or the system's resolvers when unset. Short
 * timeouts: a verify call waits on these.
 */
@Injectable()
export class DnsLookup {
  private readonly resolver = new Resolver({ timeout: 2_000, tries: 2 });

  constructor(@Inject(CONFIG) config: HeraldConfig) {
    if (config.dnsServers) this.resolver.setServers(config.dnsServers);
  }

  txt(name: string): Promise<TxtLookup> {
    return this.ask(() => this.resolver.resolveTxt(name));
  }

  mx(name: string): Promise<MxLookup> {
    return this.ask(() => this.resolver.resolveMx(name));
  }

  private async ask<T extends unknown[]>(
    query: () => Promise<T>,
  ): Promise<{ answers: T } | { absent: true } | { failure: string }> {
    try {
      const answers = await query();
      return answers.length === 0 ? { absent: true } : { answers };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && ABSENT.has(code)) return { absent: true };
      return { failure: typeof code === 'string' ? code : 'unknown error' };
    }
  }
}
