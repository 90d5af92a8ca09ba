/**
 * The API's error vocabulary. Every failure a client can see is one of these; the
 * exception filter turns them into the envelope. `code` is fixed per status, so subclasses
 * only pick a status and a message.
 */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  /** Where in the field's text the problem is (a template that does not compile), from 1. */
  line?: number;
  column?: number;
}

export const ERROR_CODES = {
  400: 'invalid_request',
  401: 'invalid_credential',
  403: 'insufficient_scope',
  404: 'not_found',
  409: 'conflict',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal_error',
} as const;

export type ErrorStatus = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }

  get code(): string {
    return ERROR_CODES[this.status];
  }
}

export class InvalidRequestError extends ApiError {
  constructor(message: string) {
    super(400, message);
  }
}

export class InvalidCredentialError extends ApiError {
  constructor() {
    super(401, 'The API key is missing, invalid, revoked or suspended.');
  }
}

export class InsufficientScopeError extends ApiError {
  constructor(readonly requiredScope: string) {
    super(403, `This API key lacks the scope ${requiredScope}.`);
  }
}

export class NotFoundError extends ApiError {
  constructor(resource: string) {
    super(404, `No such ${resource}.`);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string) {
    super(409, message);
  }
}

export class ValidationFailedError extends ApiError {
  constructor(details: ErrorDetail[]) {
    super(422, describe(details), details);
  }
}

export class RateLimitedError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, `Too many requests. Retry after ${retryAfterSeconds} seconds.`);
  }
}

function describe(details: ErrorDetail[]): string {
  const fields = [...new Set(details.map((detail) => detail.field))];
  return `The request failed validation on ${fields.join(', ')}.`;
}

/**
 * A store Herald needs (PostgreSQL) cannot be reached for a moment: nothing was done, and the
 * same request will work once it is back. Still a 500 (the contract allows no other status
 * for a failure on the service's side), but its message and Retry-After say "retry", and when.
 */
export class ServiceUnavailableError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      500,
      'The service is briefly unavailable (its database cannot be reached); nothing was done. Retry shortly.',
    );
  }
}
