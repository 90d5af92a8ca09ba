import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { waitAtMost } from '../platform/timing/wait-at-most';
import {
  KEY_CHANGES_RECONNECT_MAX_MS,
  KEY_CHANGES_RECONNECT_MS,
  KEY_CHANGES_CONNECT_WAIT_MS,
} from './auth.settings';
import { ApiKeyCache } from './api-key-cache';
import { KEY_CHANGES_CHANNEL } from './api-keys.sql';

/**
 * Keeps ApiKeyCache honest across processes: one PostgreSQL connection of its own (outside
 * the pool) LISTENs on the channel that api_keys' trigger notifies with a key's id whenever
 * its status, scopes, secret or account change, or it is deleted, whoever wrote it (this
 * process, another API process, the operator CLI, or SQL typed by hand). PostgreSQL sends
 * the notification when that write commits, so a revocation reaches every API process
 * within milliseconds.
 *
 * While the connection is down a notification could be missed, so the cache is off (every
 * request reads the table) until it is back and listening again, retried with a doubling
 * delay. API processes only: the CLI and the workers authenticate nobody.
 */
@Injectable()
export class ApiKeyChangeListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyChangeListener.name);
  private client: Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = KEY_CHANGES_RECONNECT_MS;
  private closing = false;

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly cache: ApiKeyCache,
  ) {}

  /** Waits briefly for the first connection, so the cache is on from the first request. */
  async onModuleInit(): Promise<void> {
    await waitAtMost(this.connect(), KEY_CHANGES_CONNECT_WAIT_MS);
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryTimer);
    this.cache.disable();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.config.database.directUrl,
      application_name: 'herald-api-key-changes',
    });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === KEY_CHANGES_CHANNEL && message.payload) {
        this.cache.forget(message.payload);
      }
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    // Only now are changes heard; whatever happened before is not in the cache (it was empty).
    this.cache.enable();
    this.retryMs = KEY_CHANGES_RECONNECT_MS;
  }

  private lost(client: Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.cache.disable();
    void client.end().catch(() => undefined);
    if (this.closing) return;
    const reason = error instanceof Error ? error.message : 'connection ended';
    this.logger.warn(
      `API key change listener lost (${reason}); keys are read from PostgreSQL on every ` +
        `request until it is back, retrying in ${this.retryMs} ms`,
    );
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, KEY_CHANGES_RECONNECT_MAX_MS);
  }
}
