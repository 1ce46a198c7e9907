/**
 * Opens an ioredis connection again when it ends without being closed. ioredis ends a Sentinel
 * connection for good when a failover is announced while it is reconnecting: its failover
 * detector closes the connector mid-connect, that connect fails with "Connection is closed.", and
 * ioredis does not retry after a failed connect (redis/ioredis#1683 reports pods stuck so after a
 * failover). Without this a store would serve from its own memory until the process restarts.
 */
import type { Redis } from 'ioredis';

/** ioredis's own reconnect backoff, used for every kind of connection the store opens. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 100, 2_000);
}

export function reopenWhenEnded(client: Redis, closing: () => boolean): void {
  let attempts = 0;
  client.on('ready', () => {
    attempts = 0;
  });
  client.on('end', () => {
    if (closing()) return;
    const timer = setTimeout(() => {
      if (closing() || client.status !== 'end') return;
      // A failed connect ends the connection again, and so comes back here.
      client.connect().catch(() => undefined);
    }, reconnectDelayMs(++attempts));
    timer.unref?.();
  });
}
