import { ApiError } from '../../platform/errors/api-errors';

/** No live session: the dashboard shows its sign-in page. */
export class SignInRequiredError extends ApiError {
  constructor() {
    super(401, 'Sign in to continue.');
  }
}

export class WrongPasswordError extends ApiError {
  constructor() {
    super(401, 'The email or password is incorrect.');
  }
}

/**
 * A state-changing request without a valid CSRF token, or from another origin. The status is
 * 403 (its envelope code is the generic one of that status), so the message says plainly
 * that the CSRF check is what failed, not a missing permission.
 */
export class CsrfRejectedError extends ApiError {
  constructor() {
    super(
      403,
      'CSRF check failed: the request was refused as a possible cross-site request forgery. Reload the page.',
    );
  }
}
