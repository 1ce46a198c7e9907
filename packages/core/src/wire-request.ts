/**
 * A codec's request as it goes on the wire, the same for every sender (an attempt, a token
 * count, a health probe, `switchyard check`): the endpoint's base URL (or the one its provider
 * derives from a region or location), the endpoint's extra headers under the codec's own, and
 * the provider's authorisation (a signature covers exactly what is sent, so it comes last).
 */
import { isSwitchyardError, SwitchyardError } from './errors.js';
import type { ProviderRequest, ProviderV1, WireRequest } from './provider.js';
import type { Candidate, EndpointConfig } from './types.js';
import { addFields } from './copy-fields.js';

const SLASH = 47;

/** `path` under `base` (an absolute `path` as it is). Run for every attempt: no regular expression, one string made. */
export function joinUrl(base: string, path: string): string {
  if (path.startsWith('https://') || path.startsWith('http://')) return path;
  let end = base.length;
  while (end > 0 && base.charCodeAt(end - 1) === SLASH) end--;
  const root = end === base.length ? base : base.slice(0, end);
  return path.charCodeAt(0) === SLASH ? root + path : `${root}/${path}`;
}

/** The base URL requests to `endpoint` go to; a coded config error when there is none. */
export function providerBaseUrl(provider: ProviderV1, endpoint: EndpointConfig): string {
  const base = endpoint.baseUrl ?? provider.baseUrlFor?.(endpoint) ?? provider.defaultBaseUrl;
  if (!base) throw new SwitchyardError('config', `endpoint ${endpoint.name} has no baseUrl and provider ${provider.id} has no default`, { code: 'SWITCHYARD_ERR_CONFIG' });
  return base;
}

/**
 * Adds the provider's authorisation to a request about to be sent. Any failure to authorise is
 * the key's (an `auth` error: the key is parked and the next candidate tried), unless the
 * provider classified it itself.
 */
export async function authorizeWireRequest(provider: ProviderV1, candidate: Candidate, wire: WireRequest, signal?: AbortSignal): Promise<WireRequest> {
  if (!provider.authorize) return wire;
  let added: Record<string, string>;
  try {
    added = await provider.authorize(wire, candidate, signal);
  } catch (cause) {
    if (isSwitchyardError(cause)) throw cause;
    throw new SwitchyardError('auth', `${provider.id}: could not get credentials for ${candidate.endpoint.name}: ${(cause as Error)?.message ?? String(cause)}`, { retryable: false, cause });
  }
  return { ...wire, headers: addFields({ ...wire.headers }, added) };
}

/** The whole request for `built` (used outside attempts: counts, probes, checks). */
export async function toWireRequest(provider: ProviderV1, candidate: Candidate, built: ProviderRequest, signal?: AbortSignal): Promise<WireRequest> {
  const url = joinUrl(providerBaseUrl(provider, candidate.endpoint), built.path);
  const headers = addFields(addFields({} as Record<string, string>, candidate.endpoint.headers), built.headers);
  return authorizeWireRequest(provider, candidate, { url, method: built.method, headers, body: built.body }, signal);
}
