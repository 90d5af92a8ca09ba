import { Injectable } from '@nestjs/common';
import { RateLimiterStoreAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { KeyedHasher, normalizeEmail } from '../../platform/crypto/keyed-hasher';
import { RateLimitedError } from '../../platform/errors/api-errors';
import { SharedStore } from '../../platform/store/shared-store';

/** Failed sign-ins allowed per email and IP address in a window, and per IP address alone. */
export const FAILURES_PER_EMAIL_AND_IP = 5;
export const FAILURES_PER_IP = 50;
export const SIGN_UPS_PER_IP = 10;
/**
 * Password reset requests: a few per email and address (someone who lost the first mail),
 * more per address; and a few per email from anywhere, so nobody can flood one mailbox.
 */
export const RESETS_PER_EMAIL_AND_IP = 5;
export const RESETS_PER_IP = 50;
export const RESETS_PER_EMAIL = 10;
/** Uses of invitation and reset links (each hashes a password) per address. */
export const LINK_USES_PER_IP = 20;
const WINDOW_SECONDS = 15 * 60;

/**
 * Slows password guessing, counted in the shared store so every API process shares the count: a few
 * failures per email and address (one person mistyping), many more per address (a guesser
 * spraying emails). A success clears the email+address count. Keys hold a keyed hash of the
 * email, never the email itself.
 */
@Injectable()
export class LoginThrottle {
  private readonly perEmailAndIp: RateLimiterStoreAbstract;
  private readonly perIp: RateLimiterStoreAbstract;
  private readonly signUps: RateLimiterStoreAbstract;
  private readonly resetsPerEmailAndIp: RateLimiterStoreAbstract;
  private readonly resetsPerIp: RateLimiterStoreAbstract;
  private readonly resetsPerEmail: RateLimiterStoreAbstract;
  private readonly linkUses: RateLimiterStoreAbstract;

  constructor(
    store: SharedStore,
    private readonly hasher: KeyedHasher,
  ) {
    const limiter = (keyPrefix: string, points: number) =>
      store.counter({ keyPrefix, points, duration: WINDOW_SECONDS });
    this.perEmailAndIp = limiter('dashboard-signin-email-ip', FAILURES_PER_EMAIL_AND_IP);
    this.perIp = limiter('dashboard-signin-ip', FAILURES_PER_IP);
    this.signUps = limiter('dashboard-signup-ip', SIGN_UPS_PER_IP);
    this.resetsPerEmailAndIp = limiter('dashboard-reset-email-ip', RESETS_PER_EMAIL_AND_IP);
    this.resetsPerIp = limiter('dashboard-reset-ip', RESETS_PER_IP);
    this.resetsPerEmail = limiter('dashboard-reset-email', RESETS_PER_EMAIL);
    this.linkUses = limiter('dashboard-link-ip', LINK_USES_PER_IP);
  }

  /**
   * Counts a sign-in attempt before the password is checked, and refuses it (429) once either
   * count is spent. Counting first, atomically in the store, means parallel guesses cannot slip
   * past the limit between a check and a later increment.
   */
  async beginSignIn(email: string, ip: string): Promise<void> {
    await consume(this.perIp, ip);
    await consume(this.perEmailAndIp, this.pairKey(email, ip));
  }

  /** A success wipes the email+address count and gives back the address's point. */
  async recordSuccess(email: string, ip: string): Promise<void> {
    await Promise.all([this.perEmailAndIp.delete(this.pairKey(email, ip)), this.perIp.reward(ip)]);
  }

  countSignUp(ip: string): Promise<void> {
    return consume(this.signUps, ip);
  }

  /**
   * Counts a password reset request whether or not the email has an account, so a refusal
   * (429) says nothing about who has one.
   */
  async beginPasswordReset(email: string, ip: string): Promise<void> {
    await consume(this.resetsPerIp, ip);
    await consume(this.resetsPerEmailAndIp, this.pairKey(email, ip));
    await consume(
      this.resetsPerEmail,
      this.hasher.hash('dashboard-reset-throttle', normalizeEmail(email)),
    );
  }

  /** Opening or using an invitation or reset link. */
  countLinkUse(ip: string): Promise<void> {
    return consume(this.linkUses, ip);
  }

  private pairKey(email: string, ip: string): string {
    return this.hasher.hash('dashboard-signin-throttle', `${normalizeEmail(email)}\0${ip}`);
  }
}

/** The library rejects with a RateLimiterRes when the points are spent, with an Error on failure. */
async function consume(limiter: RateLimiterStoreAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
  }
}
