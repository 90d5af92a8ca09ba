import { retryTransient } from './retry-transient';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

/** Work that fails with these errors in turn, then answers 'written'. */
function failing(...errors: Error[]) {
  let calls = 0;
  const work = () => {
    const error = errors[calls++];
    return error ? Promise.reject(error) : Promise.resolve('written');
  };
  return { work, calls: () => calls };
}

describe('retryTransient', () => {
  const quick = { attempts: 2, maxWaitMs: 1 };

  it('tries again while PostgreSQL is away, however often', async () => {
    const away = withCode('connect ECONNREFUSED', 'ECONNREFUSED');
    const { work, calls } = failing(away, away, away, away);
    await expect(retryTransient(work, quick)).resolves.toBe('written');
    expect(calls()).toBe(5);
  });

  it('gives up on another error after `attempts` tries', async () => {
    const bug = withCode('duplicate key value', '23505');
    const { work, calls } = failing(bug, bug, bug);
    await expect(retryTransient(work, quick)).rejects.toBe(bug);
    expect(calls()).toBe(2);
  });

  it('keeps trying past `attempts` while the caller says it may', async () => {
    const bug = withCode('duplicate key value', '23505');
    const seen: number[] = [];
    const { work } = failing(bug, bug, bug);
    const kept = retryTransient(work, {
      ...quick,
      keepTrying: (_error, failures) => (seen.push(failures), true),
    });
    await expect(kept).resolves.toBe('written');
    expect(seen).toEqual([1, 2, 3]);
  });
});
