/**
 * The ioredis connection a store opens from its options: one server (`url`), a primary found
 * through Sentinel (`sentinel`), or a Cluster (`cluster`), with ioredis's own support for each.
 * Every kind answers now or fails now: no offline queue, no resending after a reconnect (a
 * request would rather use local state now than shared state late).
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisStoreOptions } from './options.js';
import { redactUrl } from './redact-url.js';
import { reconnectDelayMs } from './reopen.js';

export interface Connection {
  /** A Cluster behaves as a Redis for every command the store sends; `cluster` says when it is one. */
  client: Redis;
  cluster: boolean;
  /** Where the store's name shows in messages: never a password. */
  where: string;
}

interface Node {
  host: string;
  port: number;
  username?: string;
  password?: string;
  tls?: object;
  db?: number;
}

/** A `redis[s]://user:password@host:port/db` URL as ioredis options; a URL without a host (`rediss://u:p@/0`) gives credentials only. */
function nodeOf(url: string): Node {
  const parsed = new URL(url.replace(/^(rediss?:\/\/)([^@/]*@)?\//, (_m, scheme: string, auth: string | undefined) => `${scheme}${auth ?? ''}no-host/`));
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined,
  };
}

export function connect(options: RedisStoreOptions): Connection {
  const common: RedisOptions = {
    connectTimeout: options.connectTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: reconnectDelayMs,
    // A primary demoted by a failover answers writes with READONLY: reconnect (Sentinel names the
    // new primary), without resending what failed (the store answered it locally already).
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 1 : false),
  };
  if (options.sentinel) {
    const { name, nodes, url } = options.sentinel;
    const sentinels = nodes.map(nodeOf);
    const primary: Partial<Node> = url ? nodeOf(url) : {};
    const client = new Redis({
      ...common,
      name,
      sentinels: sentinels.map(({ host, port }) => ({ host, port })),
      sentinelUsername: sentinels[0].username,
      sentinelPassword: sentinels[0].password,
      sentinelTLS: sentinels[0].tls,
      enableTLSForSentinelMode: primary.tls !== undefined,
      tls: primary.tls,
      username: primary.username,
      password: primary.password,
      db: primary.db,
      sentinelRetryStrategy: reconnectDelayMs,
      // Told by the sentinels when the primary changes, rather than finding out from failed commands.
      failoverDetector: true,
    });
    return { client, cluster: false, where: `Sentinel primary "${name}" via ${nodes.map(redactUrl).join(', ')}` };
  }
  if (options.cluster) {
    const nodes = options.cluster.nodes.map(nodeOf);
    const { username, password, tls } = nodes[0];
    const client = new Cluster(
      nodes.map(({ host, port }) => ({ host, port })),
      {
        redisOptions: { ...common, username, password, tls },
        enableOfflineQueue: false,
        enableReadyCheck: true,
        clusterRetryStrategy: reconnectDelayMs,
        // Slots move (a reshard, a failover): MOVED and ASK are followed, TRYAGAIN waits a little.
        maxRedirections: 16,
        retryDelayOnTryAgain: 50,
        retryDelayOnMoved: 0,
        slotsRefreshTimeout: options.connectTimeoutMs,
      },
    );
    return { client: client as unknown as Redis, cluster: true, where: `Cluster via ${options.cluster.nodes.map(redactUrl).join(', ')}` };
  }
  return { client: new Redis(options.url!, common), cluster: false, where: redactUrl(options.url!) };
}
