import { parseAccountId } from '../platform/database/account-id';
import { RecentAnswers } from './recent-answers';
import type { SenderIdentity } from './sender-identity';

const ACCOUNT = parseAccountId('0b7c6a0e-4f7e-4d0c-9a43-7f1f2a4f9e11');
const OTHER = parseAccountId('5f0e2b8e-1c1d-4a8e-9d0f-2a6c3b5e7d90');
const identity = (selector: string): SenderIdentity => ({
  dkim: { domainName: 'acme.test', keySelector: selector, privateKey: 'key' },
  returnPathDomain: undefined,
});

describe('RecentAnswers', () => {
  let now: number;
  let lookUps: number;
  let current: SenderIdentity | undefined;
  let recent: RecentAnswers<SenderIdentity | undefined>;
  const lookUp = () => {
    lookUps++;
    return Promise.resolve(current);
  };

  beforeEach(() => {
    now = 1_000_000;
    lookUps = 0;
    current = identity('one');
    recent = new RecentAnswers<SenderIdentity | undefined>(
      () => true,
      5_000,
      () => now,
    );
  });

  it('answers from memory within the TTL, and asks again after it', async () => {
    expect(await recent.get(ACCOUNT, 'acme.test', lookUp)).toEqual(identity('one'));
    current = identity('two');
    now += 4_999;
    expect(await recent.get(ACCOUNT, 'acme.test', lookUp)).toEqual(identity('one'));
    expect(lookUps).toBe(1);
    now += 1;
    expect(await recent.get(ACCOUNT, 'acme.test', lookUp)).toEqual(identity('two'));
    expect(lookUps).toBe(2);
  });

  it('remembers that a domain has no key, per account and domain', async () => {
    current = undefined;
    expect(await recent.get(ACCOUNT, 'acme.test', lookUp)).toBeUndefined();
    expect(await recent.get(ACCOUNT, 'acme.test', lookUp)).toBeUndefined();
    expect(lookUps).toBe(1);
    current = identity('one');
    expect(await recent.get(OTHER, 'acme.test', lookUp)).toEqual(identity('one'));
    expect(await recent.get(ACCOUNT, 'other.test', lookUp)).toEqual(identity('one'));
    expect(lookUps).toBe(3);
  });

  it('forgets everything at a change, including a lookup that was under way', async () => {
    await recent.get(ACCOUNT, 'acme.test', lookUp);
    recent.forgetAll();
    current = identity('two');
    expect(await recent.get(ACCOUNT, 'acme.test', lookUp)).toEqual(identity('two'));

    let finish!: () => void;
    const slow = recent.get(
      ACCOUNT,
      'late.test',
      () =>
        new Promise<SenderIdentity | undefined>((done) => (finish = () => done(identity('old')))),
    );
    recent.forgetAll();
    finish();
    expect(await slow).toEqual(identity('old'));
    current = identity('new');
    expect(await recent.get(ACCOUNT, 'late.test', lookUp)).toEqual(identity('new'));
  });

  it('holds a bounded number of domains, dropping the oldest', async () => {
    for (let i = 0; i < 1_001; i++) await recent.get(ACCOUNT, `d${i}.test`, lookUp);
    expect(lookUps).toBe(1_001);
    await recent.get(ACCOUNT, 'd1000.test', lookUp);
    expect(lookUps).toBe(1_001);
    await recent.get(ACCOUNT, 'd0.test', lookUp);
    expect(lookUps).toBe(1_002);
  });

  it('keeps only the answers it is told to remember', async () => {
    const verified = new RecentAnswers<boolean>(
      (answer) => answer,
      5_000,
      () => now,
    );
    let asked = 0;
    let answer = false;
    const isVerified = () => {
      asked++;
      return Promise.resolve(answer);
    };
    expect(await verified.get(ACCOUNT, 'acme.test', isVerified)).toBe(false);
    answer = true;
    expect(await verified.get(ACCOUNT, 'acme.test', isVerified)).toBe(true);
    answer = false;
    expect(await verified.get(ACCOUNT, 'acme.test', isVerified)).toBe(true);
    expect(asked).toBe(2);
  });
});
