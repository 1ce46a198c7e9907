/**
 * The real Redis the tests run against (.ci/redis.sh starts one on 127.0.0.1:6390). Without
 * one, the Redis tests are skipped locally and fail under CI, where a skip would hide them.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, it } from 'vitest';

export const REDIS_URL = process.env.SWITCHYARD_REDIS_URL ?? 'redis://127.0.0.1:6390';

/** True when something answers PING with PONG within a second. */
export function redisAnswers(url = REDIS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
}

const reachable = await redisAnswers();

/** describe() for tests that need the real Redis. */
export function describeWithRedis(name: string, body: () => void): void {
  if (!reachable && process.env.CI) {
    describe(name, () => {
      it('needs a Redis server', () => {
        throw new Error(`no Redis answers at ${REDIS_URL}; CI runs .ci/redis.sh to start one (or set SWITCHYARD_REDIS_URL)`);
      });
    });
    return;
  }
  describe.skipIf(!reachable)(name, body);
}

/** A key prefix no other test run shares. */
export function uniquePrefix(label: string): string {
  return `switchyard-test:${label}:${randomUUID()}:`;
}

/** A plain client for looking behind the store (TTLs, raw values) and for cleaning up. */
export function inspector(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 0, lazyConnect: false });
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
