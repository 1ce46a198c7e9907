/**
 * Probes each endpoint with its provider's cheap `probe()` request (a `GET /models` style
 * call) through the pipeline's own transport, so proxies and custom CAs apply as in serving.
 */
import { performance } from 'node:perf_hooks';
import { candidatesForDeployment, isSwitchyardError, readBodyText, toWireRequest, redactSecrets, type EndpointConfig, type Pipeline } from '@switchyard/core';

export interface ProbeResult {
  endpoint: string;
  provider: string;
  reachable: 'yes' | 'no' | '-';
  latencyMs?: number;
  auth: 'ok' | 'failed' | 'unknown' | '-';
  /** Model ids the endpoint listed (undefined when the answer had no list). */
  listed?: string[];
  /** Configured upstream models of this endpoint. */
  configured: string[];
  note?: string;
}

/** Model ids from the list shapes vendors use: OpenAI/Anthropic `data[].id`, Gemini `models[].name`, Ollama `models[].model`. */
export function listedModels(json: unknown): string[] | undefined {
  const body = json as { data?: { id?: unknown }[]; models?: { name?: unknown; model?: unknown }[] } | undefined;
  if (Array.isArray(body?.data)) return body.data.map((m) => String(m.id ?? ''));
  if (Array.isArray(body?.models)) return body.models.map((m) => String(m.name ?? m.model ?? '').replace(/^models\//, ''));
  return undefined;
}

export function configuredModels(pipeline: Pipeline, endpoint: string): string[] {
  const models = new Set<string>();
  for (const deployments of Object.values(pipeline.models)) for (const d of deployments) if (d.endpoint === endpoint) models.add(d.model);
  return [...models];
}

export async function probeEndpoint(pipeline: Pipeline, endpoint: EndpointConfig, timeoutMs: number): Promise<ProbeResult> {
  const configured = configuredModels(pipeline, endpoint.name);
  const result: ProbeResult = { endpoint: endpoint.name, provider: endpoint.provider, reachable: '-', auth: '-', configured };
  if (endpoint.enabled === false) return { ...result, note: 'disabled' };
  const provider = pipeline.providers.get(endpoint.provider);
  if (!provider?.probe) return { ...result, note: `provider ${endpoint.provider} has no probe` };
  const candidate = candidatesForDeployment(endpoint, { endpoint: endpoint.name, model: configured[0] ?? '' }, provider)[0];
  const signal = AbortSignal.timeout(timeoutMs);
  const started = performance.now();
  try {
    const res = await pipeline.transport.request({ ...(await toWireRequest(provider, candidate, provider.probe(candidate), signal)), signal });
    const text = await readBodyText(res.body);
    const latencyMs = Math.round(performance.now() - started);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const auth = res.status === 401 || res.status === 403 ? 'failed' : res.status < 300 ? 'ok' : 'unknown';
    const note = res.status < 300 ? undefined : `HTTP ${res.status}`;
    return { ...result, reachable: 'yes', latencyMs, auth, listed: res.status < 300 ? listedModels(json) : undefined, note };
  } catch (error) {
    // Credentials the provider could not get (no AWS chain source, an unreadable key file): nothing was sent.
    if (isSwitchyardError(error) && error.kind === 'auth') return { ...result, auth: 'failed', note: redactSecrets(error.message, [candidate.apiKey]) };
    const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : redactSecrets((error as Error).message, [candidate.apiKey]);
    return { ...result, reachable: 'no', note: reason };
  }
}

/** `3 listed, 2/2 configured found` style summary. */
export function modelsSummary(result: ProbeResult): string {
  if (!result.listed) return '-';
  const listed = new Set(result.listed);
  const missing = result.configured.filter((m) => !listed.has(m));
  const found = result.configured.length - missing.length;
  return `${result.listed.length} listed, ${found}/${result.configured.length} configured found${missing.length ? ` (missing: ${missing.join(', ')})` : ''}`;
}
