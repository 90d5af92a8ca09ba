import { ApiError } from '../../platform/errors/api-errors';

/** What a link's token can no longer do, said plainly to the person who opened it. */
export type SpentReason = 'expired' | 'used' | 'revoked';

/** A token no row matches: mistyped, cut short, or from another installation. */
export class UnknownLinkError extends ApiError {
  constructor(kind: 'invitation' | 'reset') {
    super(
      404,
      kind === 'invitation'
        ? 'This invitation link is not valid. Check that you opened the whole link, or ask the account owner for a new one.'
        : 'This password reset link is not valid. Check that you opened the whole link, or ask for a new one.',
    );
  }
}

const INVITATION_SPENT: Record<SpentReason, string> = {
  expired:
    'This invitation has expired (invitations are valid for 7 days). Ask the account owner for a new one.',
  used: 'This invitation has already been used. Sign in instead, or ask the account owner for a new one.',
  revoked: 'This invitation was withdrawn by the account owner. Ask them for a new one.',
};

// A reset link is never withdrawn: a newer one deletes it, and it is then unknown.
const RESET_SPENT: Record<Exclude<SpentReason, 'revoked'>, string> = {
  expired: 'This password reset link has expired (links are valid for 1 hour). Ask for a new one.',
  used: 'This password reset link has already been used. Ask for a new one.',
};

/** A real link that can no longer be used: 409, the link's state conflicts with the request. */
export class SpentLinkError extends ApiError {
  private constructor(message: string) {
    super(409, message);
  }

  static invitation(reason: SpentReason): SpentLinkError {
    return new SpentLinkError(INVITATION_SPENT[reason]);
  }

  static reset(reason: Exclude<SpentReason, 'revoked'>): SpentLinkError {
    return new SpentLinkError(RESET_SPENT[reason]);
  }
}

/** Inviting people and withdrawing invitations is the account's owners' and admins'. */
export class OwnerOnlyError extends ApiError {
  constructor() {
    super(403, 'Only an owner or admin of the account can invite people or withdraw invitations.');
  }
}
