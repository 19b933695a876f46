import { describe } from 'vitest';
import { inject } from 'vitest';
import { openTestDatabase, testDbKind } from '../../test/test-db.js';
import { createPostgresStore } from './postgres-store.repository.js';
import { createRedisStore } from './redis-store.js';
import { slidingLogContract } from './store.contract.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// The SQL function also exists on PGlite (same migrations), so the contract runs in both projects.
describe(`sql sliding log (${testDbKind()})`, () => {
  slidingLogContract(async () => {
    const t = await openTestDatabase(inject('testDb'));
    return { store: createPostgresStore(t.database.sql), close: () => t.drop() };
  });
});

describe.runIf(testDbKind() === 'postgres' && process.env.TEST_REDIS === '1')('redis sliding log', () => {
  slidingLogContract(() => {
    const store = createRedisStore(REDIS_URL, `tidings-test:${process.pid}:`);
    return Promise.resolve({ store, close: () => store.close() });
  });
});
