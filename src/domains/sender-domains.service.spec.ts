import { parseAccountId } from '../platform/database/account-id';
import { loadConfig } from '../platform/config/config';
import { SenderDomainsRepository } from './sender-domains.repository';
import { SenderDomainsService } from './sender-domains.service';

/**
 * The two cases where any From may be used, decided by configuration alone: the database is
 * not consulted at all (the verified case runs against PostgreSQL in the e2e tests).
 */
const ACCOUNT = parseAccountId('00000000-0000-4000-8000-000000000001');

describe('SenderDomainsService.assertCanSendFrom without a check', () => {
  const untouchable = new Proxy({} as SenderDomainsRepository, {
    get: () => () => {
      throw new Error('the repository must not be asked');
    },
  });
  const service = (env: Record<string, string>) =>
    new SenderDomainsService(
      untouchable,
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
      loadConfig({ HERALD_SECRET: 'x'.repeat(40), ...env }),
    );

  it('lets any From through when mail only goes to the outbox (no SMTP_URL)', async () => {
    await expect(
      service({}).assertCanSendFrom(ACCOUNT, 'a@anyone.example'),
    ).resolves.toBeUndefined();
  });

  it('lets any From through with ALLOW_UNVERIFIED_FROM=1', async () => {
    const allowed = service({ SMTP_URL: 'smtp://127.0.0.1:2525', ALLOW_UNVERIFIED_FROM: '1' });
    await expect(allowed.assertCanSendFrom(ACCOUNT, 'a@anyone.example')).resolves.toBeUndefined();
  });

  it('asks the repository otherwise', async () => {
    const strict = service({ SMTP_URL: 'smtp://127.0.0.1:2525' });
    await expect(strict.assertCanSendFrom(ACCOUNT, 'a@anyone.example')).rejects.toThrow(
      'the repository must not be asked',
    );
  });
});
