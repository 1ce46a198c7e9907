/**
 * Server settings: the YAML `server` section, explicit overrides on top, defaults below, and
 * the one rule that is checked before a socket opens: no unauthenticated binding beyond loopback.
 */
import { isIP } from 'node:net';
import { SwitchyardError, type ServerConfig } from '@switchyard/core';
import { serverSchema } from '@switchyard/core/internal';

export type ServerOptions = ServerConfig;

export function resolveServerOptions(...layers: (Partial<ServerConfig> | undefined)[]): ServerOptions {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) if (value !== undefined) merged[key] = value;
  }
  const parsed = serverSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = `server.${issue.path.join('.')}`;
    throw new SwitchyardError('config', `${path}: ${issue.message}`, { code: 'SWITCHYARD_ERR_CONFIG', path });
  }
  // An unset `${VAR:-}` key must never become "the empty string is a valid key".
  return { ...parsed.data, apiKeys: parsed.data.apiKeys.filter((key) => key.trim().length > 0) };
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

/** Refuses to expose an open gateway (anyone could spend the vendor keys) on a reachable interface. */
export function assertSafeBinding(options: Pick<ServerOptions, 'host' | 'apiKeys'>): void {
  if (options.apiKeys.length > 0 || isLoopbackHost(options.host)) return;
  throw new SwitchyardError(
    'config',
    `server.host: refusing to listen on ${options.host} without a gateway key; set server.apiKeys (clients then authenticate with one of them as a bearer-token) or bind to 127.0.0.1`,
    { code: 'SWITCHYARD_ERR_CONFIG_UNSAFE_BIND', path: 'server.host' },
  );
}
