/**
 * The real Redis the tests run against (.ci/redis.sh starts one on 127.0.0.1:6390). Without
 * one, the Redis tests are skipped locally and fail under CI, where a skip would hide them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** True when the `redis-server` binary is installed (CI installs it: .ci/redis.sh). */
export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A loopback port that nothing listens on. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A Redis of the test's own on its own port (never the shared one on 6390), so a test can stop
 * and restart it: an outage without touching anyone else's keys. Nothing is saved to disk.
 */
export class OwnRedisServer {
  private process: ChildProcess | undefined;
  /** Its working folder: a test that turns persistence on (CONFIG SET appendonly yes) writes there, never into the repository. */
  private readonly dir = mkdtempSync(join(tmpdir(), 'switchyard-own-redis-'));
  constructor(readonly port: number) {}

  static async start(): Promise<OwnRedisServer> {
    const server = new OwnRedisServer(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(this.port), '--save', '', '--appendonly', 'no', '--dir', this.dir], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !(await redisAnswers(this.url)); i++) await sleep(20);
  }

  /** An outage: the server goes, its folder stays for `start()` to bring it back. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** The end of a test: the server and its folder go. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
