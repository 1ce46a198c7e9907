/**
 * An undici connector that can open connections ahead of need: `warm(url)` makes the TCP (and
 * TLS) connection now and parks it; the next time the Agent needs a socket for that origin it
 * takes the parked one instead of paying the handshake. Used to warm backups when a primary's
 * breaker opens or its health drops, so the first failed-over request starts on a ready socket.
 */
import { isIP, type Socket } from 'node:net';
import { buildConnector } from 'undici';

/** A parked socket nobody took is closed after this long (below typical server idle timeouts). */
const PARKED_MS = 20_000;

export interface WarmConnector {
  (options: buildConnector.Options, callback: buildConnector.Callback): void;
  /** Opens one connection to the URL's origin now; false when it could not connect. */
  warm(url: string): Promise<boolean>;
  /** Parked sockets per origin (for tests and status). */
  parked(url: string): number;
  close(): void;
}

const keyOf = (protocol: string, hostname: string, port: string | number | null | undefined) => `${protocol}//${hostname}:${port || (protocol === 'https:' ? 443 : 80)}`;

export function createWarmConnector(options: buildConnector.BuildOptions): WarmConnector {
  const base = buildConnector(options);
  const pool = new Map<string, Set<Socket>>();

  const take = (key: string): Socket | undefined => {
    const sockets = pool.get(key);
    if (!sockets) return undefined;
    for (const socket of sockets) {
      sockets.delete(socket);
      if (!socket.destroyed && socket.readyState === 'open') return socket;
    }
    return undefined;
  };

  const connector = ((opts, callback) => {
    const socket = take(keyOf(opts.protocol, opts.hostname, opts.port));
    if (!socket) return base(opts, callback);
    socket.setTimeout(0);
    socket.removeAllListeners('timeout');
    socket.ref();
    // undici expects the callback after the connector returns, as a real connect does.
    process.nextTick(() => callback(null, socket));
  }) as WarmConnector;

  connector.warm = (url) => {
    const { protocol, hostname, port, host } = new URL(url);
    const key = keyOf(protocol, hostname, port);
    return new Promise<boolean>((resolve) => {
      // As undici does: SNI names only, never an IP address (RFC 6066).
      base({ protocol, hostname, host, port, servername: isIP(hostname) ? undefined : hostname } as buildConnector.Options, (error, socket) => {
        if (error || !socket) return resolve(false);
        const parked = socket as Socket;
        let sockets = pool.get(key);
        if (!sockets) pool.set(key, (sockets = new Set()));
        sockets.add(parked);
        // A parked socket that dies or is never taken leaves quietly.
        parked.on('error', () => undefined);
        parked.once('close', () => sockets!.delete(parked));
        parked.setTimeout(PARKED_MS, () => parked.destroy());
        parked.unref();
        resolve(true);
      });
    });
  };

  connector.parked = (url) => {
    const { protocol, hostname, port } = new URL(url);
    return pool.get(keyOf(protocol, hostname, port))?.size ?? 0;
  };

  connector.close = () => {
    for (const sockets of pool.values()) for (const s of sockets) s.destroy();
    pool.clear();
  };
  return connector;
}
