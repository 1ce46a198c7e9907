/**
 * The design documents' own configurations (the "RobustAIClient", "FaultTolerantAIClient" and
 * gateway model-mapping designs): users of those designs arrive with files like these.
 */
import { defaultBaseUrl, fixBaseUrl, isRecord, Translation, variable, variableName, vendorNamed, vendorOfUrl, type ImportedEndpoint } from './translation.js';

const seconds = (value: unknown) => (typeof value === 'number' && value > 0 ? Math.round(value * 1000) : undefined);
const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The logical model a design without model names routes to. */
export const DEFAULT_MODEL = 'default';

const STRATEGIES: Readonly<Record<string, string>> = {
  priority: 'priority-weighted',
  priority_weighted: 'priority-weighted',
  weighted: 'priority-weighted',
  round_robin: 'round-robin',
  least_latency: 'least-latency',
  latency: 'least-latency',
  cost: 'cost-aware',
  cost_aware: 'cost-aware',
};

/** `type` + `base_url` + `api_key` of a design's service: the provider and the endpoint's connection. */
async function connection(where: string, service: Record<string, unknown>, t: Translation): Promise<{ endpoint: Omit<ImportedEndpoint, 'name'>; deployment?: string }> {
  const type = text(service.type) ?? 'openai';
  const url = text(service.base_url);
  const vendor = (url ? vendorOfUrl(url) : undefined) ?? vendorNamed(type);
  const provider = vendor?.provider ?? 'openai-compatible';
  if (!vendor && !/^openai[-_]?compatible$/i.test(type)) t.note(`${where}.type`, `"${type}" is not a vendor Switchyard knows; written as an openai-compatible endpoint`);
  const fixed = url ? fixBaseUrl(provider, url) : undefined;
  if (fixed?.note) t.note(`${where}.base_url`, fixed.note);
  const baseUrl = fixed?.baseUrl ?? (await defaultBaseUrl(provider));
  const key = text(service.api_key);
  // "none" and the like: a local server without a key.
  const apiKey = key && !/^(none|null|empty|-)$/i.test(key) ? key : url ? undefined : variable(vendor?.keyVariable ?? `${variableName(type)}_API_KEY`);
  const endpoint: Omit<ImportedEndpoint, 'name'> = { provider, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
  const version = text(service.api_version);
  if (version) endpoint.apiVersion = version;
  return { endpoint, deployment: fixed?.deployment };
}

/** The "RobustAIClient" design: `endpoints[]` with `type`, `base_url`, `priority`, `weight`, health checks; global retries and timeout. */
export async function fromRobustClient(source: Record<string, unknown>, t: Translation): Promise<void> {
  const timeoutMs = seconds(source.timeout_seconds);
  const endpoints = source.endpoints as unknown[];
  for (const [i, item] of endpoints.entries()) {
    const where = `endpoints[${i}]`;
    if (!isRecord(item)) continue;
    const { endpoint, deployment } = await connection(where, item, t);
    const label = text(item.name) ?? `endpoint-${i + 1}`;
    const name = t.addEndpoint({ name: label, ...endpoint, ...(item.enabled === false ? { enabled: false } : {}), ...(timeoutMs ? { timeouts: { attemptMs: timeoutMs } } : {}) });
    // The design names no model per endpoint: the health check's payload may, an Azure URL does; otherwise it is a variable to set.
    const model = deployment ?? modelOfPayload(item.health_check_payload) ?? variable(`${variableName(label)}_MODEL`);
    if (model.startsWith('${')) t.note(`${where}`, `names no model: the deployment's model is ${model}`);
    t.addDeployment(DEFAULT_MODEL, { endpoint: name, model, ...(typeof item.priority === 'number' ? { priority: item.priority } : {}), ...(typeof item.weight === 'number' && item.weight > 0 ? { weight: item.weight } : {}) });
    const healthPath = text(item.health_check_path);
    if (healthPath && /chat\/completions|messages/.test(healthPath)) {
      t.plugin('@switchyard/plugin-health', { endpoints: { [name]: { probes: { completion: { intervalMs: seconds(source.health_check_interval_seconds) ?? 60_000 } } } } });
      if (item.health_check_payload !== undefined) t.note(`${where}.health_check_payload`, "not translated: the completion probe sends its own one-token prompt");
    }
    for (const key of Object.keys(item)) if (!ROBUST_ENDPOINT_FIELDS.has(key)) t.note(`${where}.${key}`, 'not translated');
  }
  const strategy = text(source.routing_strategy);
  if (strategy) {
    const chosen = STRATEGIES[strategy.toLowerCase()];
    if (chosen) t.plugin('@switchyard/plugin-router', { strategy: chosen });
    else t.note('routing_strategy', `"${strategy}" has no Switchyard strategy; the router's default (priority-weighted) applies`);
  }
  const interval = seconds(source.health_check_interval_seconds);
  if (interval) t.plugin('@switchyard/plugin-health', { probes: { reachability: { intervalMs: interval } } });
  if (typeof source.max_retries_per_endpoint === 'number') t.plugin('@switchyard/plugin-retry', { maxAttemptsPerCandidate: Math.min(10, Math.max(1, Math.round(source.max_retries_per_endpoint) + 1)) });
  for (const key of Object.keys(source)) if (!ROBUST_FIELDS.has(key)) t.note(key, 'not translated');
}

const ROBUST_FIELDS = new Set(['endpoints', 'routing_strategy', 'health_check_interval_seconds', 'max_retries_per_endpoint', 'timeout_seconds']);
const ROBUST_ENDPOINT_FIELDS = new Set(['name', 'type', 'base_url', 'api_key', 'api_version', 'priority', 'weight', 'enabled', 'health_check_path', 'health_check_method', 'health_check_payload']);

function modelOfPayload(payload: unknown): string | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const model = (JSON.parse(payload) as { model?: unknown }).model;
    return typeof model === 'string' && model ? model : undefined;
  } catch {
    return undefined;
  }
}

/** The "FaultTolerantAIClient" design: `ai_services.primary` / `backups[]` and `fault_handling` (breaker, retry with a 3-level backoff). */
export async function fromFaultTolerantClient(source: Record<string, unknown>, t: Translation): Promise<void> {
  const services = source.ai_services as Record<string, unknown>;
  const list: [string, unknown][] = [['ai_services.primary', services.primary], ...(Array.isArray(services.backups) ? services.backups.map((b, i): [string, unknown] => [`ai_services.backups[${i}]`, b]) : [])];
  for (const [where, service] of list) {
    if (!isRecord(service)) continue;
    if (text(service.type) === 'cache') {
      // The design's last resort answers from a cache: plugin-cache serves a stale answer when every vendor fails.
      t.plugin('@switchyard/plugin-cache');
      continue;
    }
    const { endpoint, deployment } = await connection(where, service, t);
    const label = text(service.id) ?? where;
    const name = t.addEndpoint({ name: label, ...endpoint });
    const model = text(service.model) ?? deployment ?? variable(`${variableName(label)}_MODEL`);
    t.addDeployment(DEFAULT_MODEL, { endpoint: name, model, ...(typeof service.priority === 'number' ? { priority: service.priority } : {}) });
    for (const key of Object.keys(service)) if (!['id', 'type', 'base_url', 'api_key', 'api_version', 'model', 'priority'].includes(key)) t.note(`${where}.${key}`, 'not translated');
  }
  const handling = isRecord(source.fault_handling) ? source.fault_handling : {};
  const breaker = isRecord(handling.circuit_breaker) ? handling.circuit_breaker : undefined;
  if (breaker) {
    const reset = seconds(breaker.reset_timeout);
    t.plugin('@switchyard/plugin-circuit-breaker', {
      ...(typeof breaker.failure_threshold === 'number' ? { consecutiveFailures: Math.max(1, Math.round(breaker.failure_threshold)) } : {}),
      ...(reset ? { baseOpenMs: reset, maxOpenMs: Math.max(reset, 300_000) } : {}),
    });
  }
  const retry = isRecord(handling.retry_policy) ? handling.retry_policy : undefined;
  if (retry) {
    const backoff = isRecord(retry.backoff) ? retry.backoff : {};
    // The design's three levels: a quick first retry (up to level1_max), then exponential from level2_base, capped at level3_cap.
    const probeMaxMs = seconds(backoff.level1_max);
    const baseMs = seconds(backoff.level2_base);
    const capMs = seconds(backoff.level3_cap);
    t.plugin('@switchyard/plugin-retry', {
      ...(typeof retry.max_attempts === 'number' ? { maxAttemptsPerCandidate: Math.min(10, Math.max(1, Math.round(retry.max_attempts))) } : {}),
      backoff: { ...(probeMaxMs ? { probeMinMs: 0, probeMaxMs } : {}), ...(baseMs ? { baseMs } : {}), ...(capMs ? { capMs: Math.max(capMs, baseMs ?? 0) } : {}) },
    });
  }
  for (const key of Object.keys(source)) if (key !== 'ai_services' && key !== 'fault_handling') t.note(key, 'not translated');
  for (const key of Object.keys(handling)) if (key !== 'circuit_breaker' && key !== 'retry_policy') t.note(`fault_handling.${key}`, 'not translated');
}

const CAPABILITIES: Readonly<Record<string, string>> = { json_mode: 'json', json: 'json', function_calling: 'tools', tools: 'tools', vision: 'vision', streaming: 'stream', stream: 'stream', embeddings: 'embeddings' };

/** The gateway design's `model_mapping.<model>.providers[]`: vendors by name, with priority, cost weight and capabilities. */
export async function fromModelMapping(source: Record<string, unknown>, t: Translation): Promise<void> {
  const endpointOf = new Map<string, string>();
  for (const [model, entry] of Object.entries(source.model_mapping as Record<string, unknown>)) {
    if (!isRecord(entry)) continue;
    const capabilities = (Array.isArray(entry.capabilities) ? entry.capabilities : []).flatMap((c) => {
      const known = CAPABILITIES[String(c).toLowerCase()];
      if (!known) t.note(`model_mapping.${model}.capabilities`, `"${String(c)}" is not a Switchyard capability`);
      return known ? [known] : [];
    });
    for (const [i, item] of (Array.isArray(entry.providers) ? entry.providers : []).entries()) {
      const where = `model_mapping.${model}.providers[${i}]`;
      if (!isRecord(item) || !text(item.name)) continue;
      const vendorName = text(item.name)!;
      let endpoint = endpointOf.get(vendorName);
      if (!endpoint) {
        const { endpoint: connected } = await connection(where, { type: vendorName, base_url: item.base_url, api_key: item.api_key }, t);
        endpoint = t.addEndpoint({ name: vendorName, ...connected });
        endpointOf.set(vendorName, endpoint);
      }
      t.addDeployment(model, { endpoint, model: text(item.model) ?? model, ...(typeof item.priority === 'number' ? { priority: item.priority } : {}), ...(capabilities.length ? { capabilities } : {}) });
      if (item.cost_weight !== undefined) t.note(`${where}.cost_weight`, 'not translated: cost-aware routing reads prices per million tokens; set price: { input, output } on the deployment');
      for (const key of Object.keys(item)) if (!['name', 'model', 'priority', 'cost_weight', 'base_url', 'api_key'].includes(key)) t.note(`${where}.${key}`, 'not translated');
    }
  }
  for (const key of Object.keys(source)) if (key !== 'model_mapping') t.note(key, 'not translated');
}
