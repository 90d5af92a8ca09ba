import { isTransientDatabaseError } from './transient-errors';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isTransientDatabaseError', () => {
  it('recognises a server that is away, restarting or in a lock conflict', () => {
    expect(isTransientDatabaseError(withCode('connect ECONNREFUSED', 'ECONNREFUSED'))).toBe(true);
    expect(isTransientDatabaseError(withCode('terminating connection', '57P01'))).toBe(true);
    expect(isTransientDatabaseError(withCode('the database system is starting up', '57P03'))).toBe(
      true,
    );
    expect(isTransientDatabaseError(withCode('connection failure', '08006'))).toBe(true);
    expect(isTransientDatabaseError(withCode('deadlock detected', '40P01'))).toBe(true);
    expect(
      isTransientDatabaseError(withCode('canceling statement due to statement timeout', '57014')),
    ).toBe(true);
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('leaves errors that a retry cannot fix', () => {
    expect(isTransientDatabaseError(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isTransientDatabaseError(withCode('syntax error', '42601'))).toBe(false);
    expect(isTransientDatabaseError(new TypeError('x is undefined'))).toBe(false);
    expect(isTransientDatabaseError('a string')).toBe(false);
  });
});
