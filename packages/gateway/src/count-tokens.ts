/**
 * Token counts for every dialect's count route (Messages' `count_tokens`, Gemini's
 * `:countTokens`): the dialect decodes and encodes, this counts. Exact where a target's vendor counts
 * (a provider's `buildCountTokensRequest`: Anthropic's own count_tokens, Gemini's countTokens):
 * the model's candidates that can take the request are asked in order, a failure moves to the
 * next, and when none answers the count is an estimate. The `x-switchyard-token-count` header
 * says which (`exact`, with `x-switchyard-endpoint` naming who counted, or `estimate`). Counts
 * are free at the vendors: they are not billed, budgeted or retried.
 */
import { AbortLink, expressibleCandidates, getService, readBodyText, SERVICE, SwitchyardError, toWireRequest, type Candidate, type ChatRequest, type ProviderV1 } from '@switchyard/core';
import type { Exchange } from './exchange.js';
import { estimateInputTokens } from './token-estimate.js';

export const TOKEN_COUNT_HEADER = 'x-switchyard-token-count';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The vendor's count, or undefined when it could not give one (any failure: the next one is asked). */
async function vendorCount(x: Exchange, provider: ProviderV1, candidate: Candidate, request: ChatRequest): Promise<number | undefined> {
  const limit = new AbortLink();
  const timer = x.clock.setTimeout(() => limit.abort(new SwitchyardError('timeout', `${candidate.endpoint.name} did not count within ${candidate.timeouts.headersMs} ms`)), candidate.timeouts.headersMs);
  const client = x.call.signal;
  const stop = client instanceof AbortLink ? client.onAbort(() => limit.abort(client.reason)) : undefined;
  try {
    const wire = await toWireRequest(provider, candidate, provider.buildCountTokensRequest!(request, candidate), limit.signal);
    const res = await x.pipeline.transport.request({ ...wire, abort: limit, signal: limit.signal });
    const text = res.text ? await res.text() : await readBodyText(res.body);
    if (res.status >= 300) return undefined;
    return provider.parseCountTokensResponse!({ status: res.status, headers: res.headers, text, json: parseJson(text) }, candidate);
  } catch {
    return undefined;
  } finally {
    x.clock.clearTimeout(timer);
    stop?.();
  }
}

export interface CountResult {
  tokens: number;
  /** The deployment that counted; undefined for an estimate. */
  endpoint?: string;
}

/** Counts a decoded request's input tokens; throws (in the gateway's terms) for a model the caller may not use or no target can take. */
export async function countInputTokens(x: Exchange, request: ChatRequest, inClientTerms: (error: unknown) => unknown = (e) => e): Promise<CountResult> {
  const { model } = request;
  const names = x.pipeline.modelNames();
  if (!names.includes(model)) throw new SwitchyardError('unknown-model', `unknown model "${model}"; this pipeline serves: ${names.join(', ') || '(none)'}`, { status: 404, path: 'model' });
  // A virtual key counts only on the models it may call (plugin-tenants), as its requests would.
  const caller = x.call.caller;
  if (caller && getService(x.pipeline, SERVICE.tenants)?.allowsModel(caller, model) === false) {
    throw new SwitchyardError('invalid-request', `gateway key ${caller.keyId}${caller.keyName ? ` (${caller.keyName})` : ''} may not use model "${model}"`, { code: 'SWITCHYARD_ERR_MODEL_NOT_ALLOWED', status: 403, path: 'model', retryable: false });
  }
  let candidates: readonly Candidate[];
  try {
    candidates = expressibleCandidates(request, x.pipeline.candidatesFor(model), x.pipeline.providers, true);
  } catch (error) {
    throw inClientTerms(error);
  }
  for (const candidate of candidates) {
    const provider = x.pipeline.providers.get(candidate.provider);
    if (!provider?.buildCountTokensRequest || !provider.parseCountTokensResponse) continue;
    const count = await vendorCount(x, provider, candidate, request);
    if (x.res.destroyed) break;
    if (count !== undefined) return { tokens: count, endpoint: candidate.endpoint.name };
  }
  return { tokens: estimateInputTokens(request) };
}
