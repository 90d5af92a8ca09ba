import { ConflictError } from '../platform/errors/api-errors';

/** A named write targeted an email whose identity has been erased. */
export class EmailErasedError extends ConflictError {
  constructor() {
    super('This email address belongs to an erased identity and cannot be written to.');
  }
}
