import { isDatabaseUnavailable } from './database-unavailable';

/** The shapes below are the ones pg and Prisma produced against a PostgreSQL stopped on purpose. */
describe('isDatabaseUnavailable', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a connection ended under a query', new Error('Connection terminated unexpectedly')],
    [
      'a query on a connection that already broke',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'the server shutting down',
      withCode('57P01', 'terminating connection due to administrator command'),
    ],
    ['the server starting up', withCode('57P03', 'the database system is starting up')],
    ['no connection slot left', withCode('53300')],
    ['Prisma: cannot reach the server', withCode('P1001')],
    [
      'Prisma: a raw query whose driver could not connect',
      Object.assign(withCode('P2010', 'Raw query failed.'), {
        meta: {
          driverAdapterError: {
            name: 'DriverAdapterError',
            cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 },
          },
        },
      }),
    ],
    ['the reason as a cause', new Error('outcome write failed', { cause: withCode('ECONNRESET') })],
  ])('says yes to %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a missing table', withCode('42P01', 'relation "templates" does not exist')],
    ['a unique violation', withCode('23505')],
    ['Prisma: a record not found', withCode('P2025')],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['not an error at all', 'Connection'],
    ['nothing', undefined],
  ])('says no to %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('survives a cause that points back at itself', () => {
    const error = new Error('loop') as Error & { cause: unknown };
    error.cause = error;
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
