import { ConflictError } from '../../platform/errors/api-errors';

/** A campaign send was repeated after the campaign left draft (the only 409 of that endpoint). */
export class CampaignAlreadySentError extends ConflictError {
  constructor() {
    super('This campaign has already started sending.');
  }
}

/** A change to a campaign that has started (or was cancelled): only unsent ones change. */
export class CampaignNotDraftError extends ConflictError {
  constructor() {
    super('Only a draft or scheduled campaign can be changed, and only a draft deleted.');
  }
}

/** A campaign operation its current status does not allow (pausing a draft, resuming a sent one…). */
export class CampaignStateConflictError extends ConflictError {
  constructor(operation: string, status: string) {
    super(`A ${status} campaign cannot be ${operation}.`);
  }
}
