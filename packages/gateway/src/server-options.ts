/**
 * Server settings: the YAML `server` section, explicit overrides on top, defaults below, and
 * the one rule that is checked before a socket opens: no unauthenticated binding beyond loopback.
 */
import { GATEWAY_ERRORS } from './error-codes.js';
import { isIP } from 'node:net';
import { SwitchyardError } from '@switchyard/core';
import { type ServerConfig } from '@switchyard/core/config';
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
  const apiKeys = parsed.data.apiKeys.filter((key) => key.trim().length > 0);
  const adminKeys = parsed.data.adminKeys.filter((key) => key.trim().length > 0);
  // An admin key is never a gateway key: one string in both lists would be both.
  if (adminKeys.some((key) => apiKeys.includes(key))) {
    throw new SwitchyardError('config', 'server.adminKeys: an admin key is also in server.apiKeys; use different keys for the admin API and for clients', { code: 'SWITCHYARD_ERR_CONFIG', path: 'server.adminKeys' });
  }
  return { ...parsed.data, apiKeys, adminKeys };
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

/**
 * Refuses to expose an open gateway (anyone could spend the vendor keys) on a reachable
 * interface. Admin keys count: they come with the tenants plugin, whose virtual keys every
 * model route then needs (assertKeysServed checks the plugin is there).
 */
export function assertSafeBinding(options: Pick<ServerOptions, 'host' | 'apiKeys'> & { adminKeys?: readonly string[] }): void {
  if (options.apiKeys.length > 0 || (options.adminKeys?.length ?? 0) > 0 || isLoopbackHost(options.host)) return;
  throw new SwitchyardError(
    'config',
    `server.host: refusing to listen on ${options.host} without a gateway key; set server.apiKeys (clients then authenticate with one of them as a bearer-token) or bind to 127.0.0.1`,
    { code: GATEWAY_ERRORS.SWITCHYARD_ERR_CONFIG_UNSAFE_BIND, path: 'server.host' },
  );
}

/** Admin keys manage virtual keys: without the tenants plugin there is nothing to manage, and nothing would guard the model routes. */
export function assertKeysServed(options: { apiKeys: readonly string[]; adminKeys: readonly string[] }, tenants: boolean): void {
  if (options.adminKeys.length === 0 || tenants) return;
  throw new SwitchyardError('config', 'server.adminKeys: the admin API manages the virtual keys of @switchyard/plugin-tenants, which this pipeline does not have; add it to plugins, or remove server.adminKeys', {
    code: 'SWITCHYARD_ERR_CONFIG',
    path: 'server.adminKeys',
  });
}
