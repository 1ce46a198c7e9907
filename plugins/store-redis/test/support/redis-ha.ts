/**
 * The Sentinel group and the Cluster that .ci/redis-ha.sh starts (ports below). Without them
 * these tests are skipped locally and fail under CI, where a skip would hide them.
 */
import { describe, it } from 'vitest';
import { redisAnswers } from './redis.js';

export const SENTINEL_NAME = 'switchyard';
export const SENTINELS = [26391, 26392, 26393].map((port) => `redis://127.0.0.1:${port}`);
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
