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

/**
 * Sign-up is not open on this installation (SIGNUP `closed`, or `first` once the first account
 * exists). The message says how to get in instead, without telling who has an account.
 */
export class SignUpClosedError extends ApiError {
  constructor() {
    super(
      403,
      'Sign-up is closed on this installation. Ask an account owner for an invitation, or the operator for an account.',
    );
  }
}
