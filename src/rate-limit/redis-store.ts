import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { SlidingLogStore } from './store.js';

// One sorted set per key (score = time). Atomic in Redis: trim, count, maybe add.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[2]))
local count = redis.call('ZCARD', KEYS[1])
local admitted = 0
if count < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  count = count + 1
  admitted = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {admitted, count, oldest[2] or ARGV[3]}
`;

export function createRedisStore(url: string, prefix = 'tidings:rl:'): SlidingLogStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false });
  let seq = 0;
  const nonce = randomBytes(6).toString('hex');
  return {
    async take(key, limit, windowMs, now) {
      // Member must be unique even for two requests in the same millisecond.
      const member = `${now}:${nonce}:${seq++}`;
      const res = (await redis.eval(TAKE, 1, prefix + key, limit, windowMs, now, member)) as [number, number, string];
      return { admitted: res[0] === 1, count: Number(res[1]), oldest: Number(res[2]) };
    },
    async peek(key, windowMs, now) {
      const k = prefix + key;
      const [count, first] = await Promise.all([
        redis.zcount(k, `(${now - windowMs}`, '+inf'),
        redis.zrangebyscore(k, `(${now - windowMs}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
      ]);
      return { count, oldest: first[1] === undefined ? now : Number(first[1]) };
    },
    // Keys also expire by themselves (PEXPIRE on every admission); this trims long-lived ones.
    async sweep(olderThan) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        for (const k of keys) await redis.zremrangebyscore(k, '-inf', olderThan);
      } while (cursor !== '0');
    },
    async close() {
      await redis.quit();
    },
  };
}
