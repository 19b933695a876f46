import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-unavailable.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a server shut down by an administrator', withCode('terminating connection due to administrator command', '57P01')],
    ['a server starting up', withCode('the database system is starting up', '57P03')],
    ['a connection that ended under the client', new Error('Connection terminated unexpectedly')],
    ['a query on a client that lost its connection', new Error('Client has encountered a connection error and is not queryable')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['drizzle wrapping a dropped connection', new Error('Failed query: select 1', { cause: new Error('Connection terminated unexpectedly') })],
    ['two levels of wrapping', new Error('outer', { cause: new Error('Failed query', { cause: withCode('x', '57P01') }) })],
  ])('%s is unavailability', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error wrapped by drizzle', new Error('Failed query: selec 1', { cause: withCode('syntax error at or near "selec"', '42601') })],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'Connection terminated'],
    ['nothing', undefined],
  ])('%s is not', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
