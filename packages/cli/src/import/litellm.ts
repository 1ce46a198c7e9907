/**
 * LiteLLM proxy's `config.yaml` (the common way teams arrive): `model_list`, `router_settings`
 * and `litellm_settings` (retries, timeout, fallbacks). `os.environ/NAME` becomes `${NAME}`.
 */
import { defaultBaseUrl, fixBaseUrl, isRecord, Translation, variable, vendorNamed, type ImportedEndpoint } from './translation.js';

/** LiteLLM's provider prefixes Switchyard has a provider for; others (bedrock, vertex_ai…) are reported. */
const PREFIXES: Readonly<Record<string, string>> = {
  openai: 'openai',
  azure: 'azure',
  anthropic: 'anthropic',
  gemini: 'gemini',
  deepseek: 'deepseek',
  dashscope: 'dashscope',
  moonshot: 'moonshot',
  zhipu: 'zhipu',
  ollama: 'openai-compatible',
  ollama_chat: 'openai-compatible',
  hosted_vllm: 'openai-compatible',
  vllm: 'openai-compatible',
  lm_studio: 'openai-compatible',
  openai_like: 'openai-compatible',
  text_completion_openai: 'openai',
};

const STRATEGIES: Readonly<Record<string, string>> = {
  'simple-shuffle': 'priority-weighted',
  'latency-based-routing': 'least-latency',
  'cost-based-routing': 'cost-aware',
};

const LITELLM_PARAMS = new Set(['model', 'api_base', 'base_url', 'api_key', 'api_version', 'timeout', 'stream_timeout', 'weight', 'order', 'max_retries']);

/** `os.environ/NAME` as `${NAME}`; anything else as written. */
function value(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !raw) return undefined;
  const env = /^os\.environ\/([A-Za-z_][A-Za-z0-9_]*)$/.exec(raw.trim());
  return env ? variable(env[1]) : raw;
}

const seconds = (raw: unknown) => (typeof raw === 'number' && raw > 0 ? Math.round(raw * 1000) : undefined);

export async function fromLiteLLM(source: Record<string, unknown>, t: Translation): Promise<void> {
  const endpointFor = new Map<string, string>();
  const router = isRecord(source.router_settings) ? source.router_settings : {};
  const settings = isRecord(source.litellm_settings) ? source.litellm_settings : {};
  const timeoutMs = seconds(router.timeout) ?? seconds(settings.request_timeout);
  for (const [i, item] of (source.model_list as unknown[]).entries()) {
    const where = `model_list[${i}]`;
    if (!isRecord(item) || typeof item.model_name !== 'string' || !isRecord(item.litellm_params)) {
      t.note(where, 'not translated: expected model_name and litellm_params');
      continue;
    }
    const params = item.litellm_params;
    const target = String(params.model ?? '');
    const slash = target.indexOf('/');
    const prefix = slash > 0 ? target.slice(0, slash) : 'openai';
    const upstream = slash > 0 ? target.slice(slash + 1) : target;
    const provider = PREFIXES[prefix];
    if (!provider || !upstream) {
      t.note(`${where}.litellm_params.model`, `"${target}": ${provider ? 'no model' : `LiteLLM provider "${prefix}" has no Switchyard provider`}; this deployment was left out`);
      continue;
    }
    const base = value(params.api_base) ?? value(params.base_url);
    const fixed = base && !base.startsWith('${') ? fixBaseUrl(provider, base) : base ? { baseUrl: base } : undefined;
    if (fixed && 'note' in fixed && fixed.note) t.note(`${where}.litellm_params.api_base`, fixed.note);
    // Ollama's OpenAI-compatible API lives under /v1.
    const baseUrl = fixed ? (prefix.startsWith('ollama') && !/\/v1\/?$/.test(fixed.baseUrl) ? `${fixed.baseUrl.replace(/\/+$/, '')}/v1` : fixed.baseUrl) : await defaultBaseUrl(provider);
    const apiKey = value(params.api_key) ?? (base ? undefined : variable(vendorNamed(provider)?.keyVariable ?? `${prefix.toUpperCase()}_API_KEY`));
    const apiVersion = value(params.api_version);
    const key = JSON.stringify([provider, baseUrl, apiKey, apiVersion]);
    let endpoint = endpointFor.get(key);
    if (!endpoint) {
      const made: ImportedEndpoint = { name: provider === 'openai-compatible' ? prefix : provider, provider, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}), ...(apiVersion ? { apiVersion } : {}) };
      const own = seconds(params.timeout) ?? timeoutMs;
      if (own) made.timeouts = { attemptMs: own };
      endpoint = t.addEndpoint(made);
      endpointFor.set(key, endpoint);
    }
    const weight = typeof params.weight === 'number' && params.weight > 0 ? params.weight : undefined;
    const priority = typeof params.order === 'number' ? params.order : undefined;
    t.addDeployment(item.model_name, { endpoint, model: fixed && 'deployment' in fixed && fixed.deployment ? fixed.deployment : upstream, ...(priority !== undefined ? { priority } : {}), ...(weight ? { weight } : {}) });
    for (const name of Object.keys(params)) if (!LITELLM_PARAMS.has(name)) t.note(`${where}.litellm_params.${name}`, 'not translated');
    if (item.model_info !== undefined) t.note(`${where}.model_info`, 'not translated (set contextWindow, price or capabilities on the deployment)');
  }
  addFallbacks(t, router.fallbacks, 'router_settings.fallbacks');
  addFallbacks(t, settings.fallbacks, 'litellm_settings.fallbacks');
  const retries = typeof router.num_retries === 'number' ? router.num_retries : typeof settings.num_retries === 'number' ? settings.num_retries : undefined;
  if (retries !== undefined) t.plugin('@switchyard/plugin-retry', { maxAttemptsPerCandidate: Math.min(10, Math.max(1, Math.round(retries) + 1)) });
  const cooldown = seconds(router.cooldown_time);
  if (typeof router.allowed_fails === 'number' || cooldown) {
    t.plugin('@switchyard/plugin-circuit-breaker', {
      ...(typeof router.allowed_fails === 'number' ? { consecutiveFailures: Math.max(1, Math.round(router.allowed_fails) + 1) } : {}),
      ...(cooldown ? { baseOpenMs: cooldown, maxOpenMs: Math.max(cooldown, 300_000) } : {}),
    });
  }
  const strategy = typeof router.routing_strategy === 'string' ? router.routing_strategy : undefined;
  if (strategy && STRATEGIES[strategy]) t.plugin('@switchyard/plugin-router', { strategy: STRATEGIES[strategy] });
  else if (strategy) t.note('router_settings.routing_strategy', `"${strategy}" has no Switchyard strategy; the router's default (priority-weighted) applies`);
  const handled = new Set(['fallbacks', 'num_retries', 'timeout', 'cooldown_time', 'allowed_fails', 'routing_strategy']);
  for (const name of Object.keys(router)) if (!handled.has(name)) t.note(`router_settings.${name}`, 'not translated');
  for (const name of Object.keys(settings)) if (!['fallbacks', 'num_retries', 'request_timeout'].includes(name)) t.note(`litellm_settings.${name}`, 'not translated');
  for (const name of Object.keys(source)) if (!['model_list', 'router_settings', 'litellm_settings'].includes(name)) t.note(name, 'not translated');
}

/**
 * `fallbacks: [{ gpt-4o: [claude] }]`: the fallback model's deployments join the model's own,
 * after them (a lower priority), so a request fails over to them once its own are exhausted.
 */
function addFallbacks(t: Translation, raw: unknown, where: string): void {
  if (raw === undefined) return;
  if (!Array.isArray(raw)) return t.note(where, 'not translated: expected a list of { model: [fallbacks] }');
  for (const [i, entry] of raw.entries()) {
    if (!isRecord(entry)) continue;
    for (const [model, fallbacks] of Object.entries(entry)) {
      const own = t.models[model];
      if (!own) {
        t.note(`${where}[${i}].${model}`, 'not translated: no such model in model_list');
        continue;
      }
      let priority = Math.max(0, ...own.map((d) => d.priority ?? 0));
      for (const fallback of Array.isArray(fallbacks) ? fallbacks : [fallbacks]) {
        const theirs = t.models[String(fallback)];
        if (!theirs) {
          t.note(`${where}[${i}].${model}`, `fallback "${String(fallback)}" is not in model_list`);
          continue;
        }
        priority += 1;
        for (const d of theirs) own.push({ ...d, priority });
      }
    }
  }
}
