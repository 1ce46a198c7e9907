/**
 * The Sentinel group and the Cluster that .ci/redis-ha.sh starts (ports below). Without them
 * these tests are skipped locally and fail under CI, where a skip would hide them.
 */
import { Redis } from 'ioredis';
import { describe, it } from 'vitest';
import { redisAnswers } from './redis.js';

export const SENTINEL_NAME = 'switchyard';
export const SENTINELS = [26391, 26392, 26393].map((port) => `redis://127.0.0.1:${port}`);
/** The group's primary and replica; which is which changes with each failover. */
export const SENTINEL_DATA_PORTS = [6391, 6392];
export const CLUSTER_NODES = [7101, 7102, 7103].map((port) => `redis://127.0.0.1:${port}`);

const sentinelUp = await redisAnswers(SENTINELS[0]);
const clusterUp = await redisAnswers(CLUSTER_NODES[0]);

function describeWith(up: boolean, what: string, name: string, body: () => void): void {
  if (!up && process.env.CI) {
    describe(name, () => {
      it(`needs the ${what}`, () => {
        throw new Error(`the ${what} does not answer; CI runs .ci/redis-ha.sh to start it`);
      });
    });
    return;
  }
  describe.skipIf(!up)(name, body);
}

export const describeWithSentinel = (name: string, body: () => void) => describeWith(sentinelUp, 'Redis Sentinel group (26391-26393)', name, body);
export const describeWithCluster = (name: string, body: () => void) => describeWith(clusterUp, 'Redis Cluster (7101-7103)', name, body);

/** INFO replication as fields. */
async function replication(port: number): Promise<Record<string, string>> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const text = (await client.info('replication')) as string;
    return Object.fromEntries(text.split('\r\n').filter((line) => line.includes(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]));
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    client.disconnect();
  }
}

/**
 * What keeps the Sentinel group from being whole, or `whole`: every sentinel names one primary,
 * which has its replica online and in sync. A failover test leaves the old primary restarted, and
 * Sentinel turns it into the new primary's replica some seconds later; a test started before then
 * would see Sentinel promote an empty server (its writes lost) or no replica at all.
 */
export async function sentinelGroup(): Promise<string> {
  const primaries = new Set<string>();
  for (const url of SENTINELS) {
    const sentinel = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
    sentinel.on('error', () => undefined);
    try {
      const [host, port] = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME)) as string[];
      const master = (await sentinel.call('SENTINEL', 'master', SENTINEL_NAME)) as string[];
      const flags = master[master.indexOf('flags') + 1];
      if (flags !== 'master') return `sentinel ${url} sees the primary ${host}:${port} as ${flags}`;
      primaries.add(port);
    } catch (error) {
      return `sentinel ${url}: ${(error as Error).message}`;
    } finally {
      sentinel.disconnect();
    }
  }
  if (primaries.size !== 1) return `the sentinels name different primaries: ${[...primaries].join(', ')}`;
  const primaryPort = Number([...primaries][0]);
  const primary = await replication(primaryPort);
  if (primary.role !== 'master') return `${primaryPort} is ${primary.role ?? primary.error}, not the primary`;
  const replicaPort = SENTINEL_DATA_PORTS.find((port) => port !== primaryPort)!;
  const replica = await replication(replicaPort);
  if (replica.role !== 'slave' || replica.master_port !== String(primaryPort)) return `${replicaPort} is ${replica.role ?? replica.error} (master_port ${replica.master_port ?? '-'}), not ${primaryPort}'s replica yet`;
  if (replica.master_link_status !== 'up' || replica.master_sync_in_progress !== '0') return `${replicaPort} is still syncing from ${primaryPort}`;
  if (!/state=online/.test(primary.slave0 ?? '')) return `${primaryPort} does not see its replica online (${primary.slave0 ?? 'none'})`;
  return 'whole';
}
