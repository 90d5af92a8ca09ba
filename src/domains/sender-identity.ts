/** A DKIM signing key as nodemailer's per-message `dkim` option takes it. */
export interface DkimSigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * How mail from one of an account's sender domains leaves: signed with the domain's key, and,
 * once the domain's bounce subdomain is published, with that subdomain as the envelope domain.
 */
export interface SenderIdentity {
  dkim: DkimSigningKey;
  /** `herald-bounces.<domain>` once its MX and SPF records are found; else undefined. */
  returnPathDomain: string | undefined;
}

/**
 * The domain of the envelope sender (Return-Path) for a message: the sender domain's own
 * bounce subdomain when it has one, so SPF passes aligned with the From domain; otherwise the
 * operator's BOUNCE_DOMAIN. A VERP address puts its per-message local part in front of it.
 */
export function returnPathDomainFor(
  sender: SenderIdentity | undefined,
  bounceDomain: string,
): string {
  return sender?.returnPathDomain ?? bounceDomain;
}
