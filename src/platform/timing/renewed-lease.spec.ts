import { Logger } from '@nestjs/common';
import { RenewedLease } from './renewed-lease';

describe('RenewedLease', () => {
  const logger = new Logger('test');
  const terms = { leaseMs: 30_000, renewEveryMs: 60_000, marginMs: 5_000 };

  it('holds until its end by this process’s clock, less the margin', () => {
    const fresh = new RenewedLease(
      terms,
      Date.now(),
      () => Promise.resolve(true),
      () => undefined,
      logger,
    );
    expect(fresh.holds).toBe(true);
    fresh.end();
    const old = new RenewedLease(
      terms,
      Date.now() - 26_000,
      () => Promise.resolve(true),
      () => undefined,
      logger,
    );
    expect(old.holds).toBe(false);
    expect(old.lost).toBe(false);
    old.end();
  });

  it('is kept by a renewal just before acting, when the database agrees', async () => {
    let renewals = 0;
    const lease = new RenewedLease(
      terms,
      Date.now() - 26_000,
      () => Promise.resolve(++renewals > 0),
      () => undefined,
      logger,
    );
    expect(await lease.holdsAfterRenewal()).toBe(true);
    expect(renewals).toBe(1);
    lease.end();
  });

  it('ends for good when the database refuses a renewal, and says so once', async () => {
    const revoked: string[] = [];
    const lease = new RenewedLease(
      terms,
      Date.now() - 26_000,
      () => Promise.resolve(false),
      () => revoked.push('revoked'),
      logger,
    );
    expect(await lease.holdsAfterRenewal()).toBe(false);
    expect(await lease.holdsAfterRenewal()).toBe(false);
    expect(lease.lost).toBe(true);
    expect(revoked).toEqual(['revoked']);
    lease.end();
  });

  it('keeps its last term when PostgreSQL is away', async () => {
    const lease = new RenewedLease(
      terms,
      Date.now(),
      () => Promise.reject(new Error('connection refused')),
      () => undefined,
      logger,
    );
    expect(await lease.holdsAfterRenewal()).toBe(true);
    expect(lease.lost).toBe(false);
    lease.end();
  });
});
