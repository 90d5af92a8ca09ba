import { AccountId } from '../platform/database/account-id';
import { ACCOUNT_QUOTAS, QuotaExceededError } from '../platform/database/account-quota';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditAction, AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { isUuid, newId } from '../platform/crypto/ids';
import { ConflictError, NotFoundError, ValidationFailedError } from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { DkimKeyVault, generateDkimKeyPair, newSelector } from './dkim-keys';
import { returnPathHost } from './dns-records';
import { normalizeDomainName, senderDomainOf } from './domain-name';
import { CreateDomainDto } from './domain.dto';
import { DomainResponse, presentDomain } from './domain.presenter';
import { DomainVerifier } from './domain-verifier';
import { RecordCheck } from './record-checks';
import { DomainWithKeys, NewKey, SenderDomainsRepository } from './sender-domains.repository';
import { RecentAnswers } from './recent-answers';
import { SenderIdentity } from './sender-identity';

const RECHECK_BATCH = 20;

/**
 * Sender domains: what an account may put in From, and how its mail is signed. Other modules
 * use only assertCanSendFrom (before accepting mail) and signingIdentity (when sending it).
 */
@Injectable()
export class SenderDomainsService {
  private readonly logger = new Logger(SenderDomainsService.name);
  // Forgotten whenever this process changes a domain: its next request or message sees it.
  private readonly recentIdentities = new RecentAnswers<SenderIdentity | undefined>();
  /** Only a domain found verified is remembered: one verified elsewhere counts at once. */
  private readonly recentlyVerified = new RecentAnswers<boolean>((verified) => verified);

  constructor(
    private readonly domains: SenderDomainsRepository,
    private readonly verifier: DomainVerifier,
    private readonly vault: DkimKeyVault,
    private readonly paginator: Paginator,
    private readonly audit: AuditLog,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<DomainResponse>> {
    return this.paginator.list(caller.accountId, query, this.domains, (row) => this.present(row));
  }

  async get(caller: Principal, id: string): Promise<DomainResponse> {
    return this.present(await this.find(caller.accountId, id));
  }

  /** A new domain with its own fresh key; 409 when the account already has this name. */
  async create(caller: Principal, body: CreateDomainDto): Promise<DomainResponse> {
    const name = normalizeDomainName(body.name)!;
    const domainId = newId();
    const created = await this.domains.create(
      caller.accountId,
      { id: domainId, name },
      await this.newKey(),
    );
    if (!created) throw new ConflictError(`This account already has the domain ${name}.`);
    if (created === 'quota_exceeded') {
      throw new QuotaExceededError(
        'name',
        `An account has at most ${ACCOUNT_QUOTAS.sender_domains} sender domains; delete one first.`,
      );
    }
    await this.record(caller.accountId, caller, 'sender_domain.added', {
      domain_id: domainId,
      domain: name,
    });
    return this.present(created);
  }

  async delete(caller: Principal, id: string): Promise<void> {
    const domain = await this.find(caller.accountId, id);
    const deleted = await this.domains.delete(caller.accountId, id);
    this.forgetRecentAnswers();
    if (!deleted) throw new NotFoundError('domain');
    await this.record(caller.accountId, caller, 'sender_domain.deleted', {
      domain_id: id,
      domain: domain.name,
    });
  }

  /** Looks the records up now and answers with the outcome. */
  async verify(caller: Principal, id: string): Promise<DomainResponse> {
    return this.present(await this.check(caller.accountId, id, caller));
  }

  /**
   * The workers' re-check: every domain last checked before `before`, claimed a batch at a
   * time. A domain whose DNS check throws is logged and left for the next pass. Returns how
   * many were checked.
   */
  async recheckDue(before: Date): Promise<number> {
    let checked = 0;
    for (;;) {
      const due = await this.domains.claimDueForRecheckAcrossAccounts(before, RECHECK_BATCH);
      for (const domain of due) {
        try {
          await this.check(domain.accountId, domain.id);
          checked++;
        } catch (error) {
          if (!(error instanceof NotFoundError)) {
            this.logger.warn({ err: error, domainId: domain.id }, 'domain re-check failed');
          }
        }
      }
      if (due.length < RECHECK_BATCH) return checked;
    }
  }

  /** Checks, stores, and audits what changed: the status, or the key that signs. */
  private async check(accountId: AccountId, id: string, caller?: Principal) {
    const domain = await this.find(accountId, id);
    const verified = await this.verifier.verify(domain);
    this.forgetRecentAnswers();
    if (!verified) throw new NotFoundError('domain');
    const checked = await this.find(accountId, id);
    const metadata = { domain_id: id, domain: domain.name };
    if (domain.status !== checked.status) {
      await this.record(
        accountId,
        caller,
        `sender_domain.${checked.status}` as AuditAction,
        metadata,
      );
    }
    const before = activeSelector(domain);
    const after = activeSelector(checked);
    if (before && after && before !== after) {
      await this.record(accountId, caller, 'sender_domain.key_rotated', {
        ...metadata,
        dkim_selector: after,
      });
    }
    return checked;
  }

  /**
   * Starts a key rotation: a new key with its own selector waits, while the current key goes on
   * signing, until a verification finds the new record; then it signs instead. So there is no
   * moment when mail leaves unsigned or signed by a key that is not published.
   */
  async rotate(caller: Principal, id: string): Promise<DomainResponse> {
    const domain = await this.find(caller.accountId, id);
    const outcome = await this.domains.addRotationKey(caller.accountId, id, await this.newKey());
    if (outcome === 'not_found') throw new NotFoundError('domain');
    if (outcome === 'not_verified') {
      throw new ConflictError('Verify the domain before rotating its key.');
    }
    if (outcome === 'rotation_pending') {
      throw new ConflictError(
        'A key rotation is already waiting for its DNS record; publish it and verify.',
      );
    }
    await this.record(caller.accountId, caller, 'sender_domain.rotation_started', {
      domain_id: id,
      domain: domain.name,
    });
    return this.present(await this.find(caller.accountId, id));
  }

  /**
   * Refuses a From whose domain is not a verified sender domain of the account (422 on
   * `from`, code unverified_domain). Skipped when the operator allows unverified senders
   * (development) or when mail only goes to the local outbox (no SMTP_URL): then nothing can
   * reach anyone's inbox.
   */
  async assertCanSendFrom(accountId: AccountId, from: string): Promise<void> {
    if (this.config.allowUnverifiedFrom || !this.config.smtpUrl) return;
    const name = senderDomainOf(from);
    if (name && (await this.isVerified(accountId, name))) return;
    throw new ValidationFailedError([
      {
        field: 'from',
        code: 'unverified_domain',
        message: name
          ? `${name} is not a verified sender domain of this account. Add it under /v1/domains, publish its DNS records and verify it.`
          : 'from has no domain to send from.',
      },
    ]);
  }

  private isVerified(accountId: AccountId, name: string): Promise<boolean> {
    return this.recentlyVerified.get(accountId, name, async () =>
      Boolean(await this.domains.findVerified(accountId, name)),
    );
  }

  private forgetRecentAnswers() {
    this.recentIdentities.forgetAll();
    this.recentlyVerified.forgetAll();
  }

  /**
   * How to sign mail from `from` for this account: its domain's signing key, and its bounce
   * subdomain once published. Undefined when the account has no signing key for that domain
   * (the transport's operator-wide key, if configured, signs instead).
   */
  async signingIdentity(accountId: AccountId, from: string): Promise<SenderIdentity | undefined> {
    const name = senderDomainOf(from);
    if (!name) return undefined;
    return this.recentIdentities.get(accountId, name, () => this.lookUpIdentity(accountId, name));
  }

  private async lookUpIdentity(
    accountId: AccountId,
    name: string,
  ): Promise<SenderIdentity | undefined> {
    const key = await this.domains.findSigningKey(accountId, name);
    if (!key) return undefined;
    let privateKey: string;
    try {
      privateKey = this.vault.open(key.privateKeyEncrypted, key.id);
    } catch (error) {
      // Only a changed HERALD_SECRET or a tampered row gets here: sending unsigned beats not
      // sending, and the log says why.
      this.logger.error(`DKIM key ${key.id} of ${name} cannot be decrypted: ${String(error)}`);
      return undefined;
    }
    const checks = key.domain.checks as unknown as Record<string, RecordCheck | undefined>;
    const bounceSubdomainReady =
      checks.return_path?.status === 'found' &&
      checks.return_path.value === this.config.bounceDomain &&
      checks.spf?.status === 'found';
    return {
      dkim: { domainName: key.domain.name, keySelector: key.selector, privateKey },
      returnPathDomain: bounceSubdomainReady ? returnPathHost(key.domain.name) : undefined,
    };
  }

  private present(domain: DomainWithKeys): DomainResponse {
    return presentDomain(domain, this.config.bounceDomain);
  }

  private async find(accountId: AccountId, id: string): Promise<DomainWithKeys> {
    const domain = isUuid(id) ? await this.domains.findById(accountId, id) : null;
    if (!domain) throw new NotFoundError('domain');
    return domain;
  }

  private async newKey(): Promise<NewKey> {
    const id = newId();
    const pair = await generateDkimKeyPair();
    return {
      id,
      selector: newSelector(),
      publicKey: pair.publicKey,
      privateKeyEncrypted: this.vault.seal(pair.privateKeyPem, id),
    };
  }

  /** Audited as the caller (recordBy adds its key or user), or as the system for re-checks. */
  private record(
    accountId: AccountId,
    caller: Principal | undefined,
    action: AuditAction,
    metadata: Record<string, string>,
  ) {
    if (caller) return this.audit.recordBy(caller, { action, metadata });
    return this.audit.record(accountId, { action, metadata });
  }
}

function activeSelector(domain: DomainWithKeys): string | undefined {
  return domain.keys.find((key) => key.status === 'active')?.selector;
}
