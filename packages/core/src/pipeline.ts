/**
 * createPipeline(): the pipeline object — construction, hooks, close (docs/lifecycle.md). The
 * core decides nothing on its own beyond safe defaults: candidates in priority order, the next
 * candidate on a failure that is not the request's fault. Policy plugins replace those defaults
 * through the hooks. One request is a RequestRun (request-run.ts).
 */
import { signalOf } from './abort-link.js';
import { systemClock, type Clock, type RandomSource } from './clock.js';
import { buildCandidates, DEFAULT_DEADLINE_MS } from './candidates.js';
import type { CallOptions, Pipeline } from './contract.js';
import { SwitchyardError } from './errors.js';
import { SwitchyardEventBus } from './events.js';
import { createPipelineHooks, STAGE } from './hooks.js';
import { PIPELINE_MARKER } from './pipeline-marker.js';
import { tapDefaultContinuation } from './continuation.js';
import { DEFAULT_CONTINUATION_MAX_BYTES } from './kept-stream.js';
import { runIdempotent, type IdempotencyFallback } from './idempotency.js';
import { containRecordTaps } from './fail-closed.js';
import { checkPluginCompatibility, isPlugin, type Plugin } from './plugin.js';
import { isProvider, type ProviderV1 } from './provider.js';
import { callProvider, type CallEnv } from './provider-call.js';
import { newRequestId, RequestRun, type RequestMode } from './request-run.js';
import type { SkippedCandidate } from './translation.js';
import { candidateRef } from './candidate-ref.js';
import { withField } from './copy-fields.js';
import { MemoryStateStore, type StateStore } from './state-store.js';
import { createUndiciTransport, type Transport } from './transport.js';
import { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from './response-limits.js';
import type { ChatStream } from './chat-stream.js';
import { validateChatRequest, validateEmbeddingRequest } from './validate-request.js';
import { validateEndpointsAndModels } from './config-schema.js';
import { expressibleCandidates } from './expressible.js';
import { withCallerHints } from './caller.js';
import type { Candidate, ChatRequest, ChatResponse, ChatResult, EmbeddingResponse, EmbeddingResult, EndpointConfig, ModelsConfig } from './types.js';
import type { Dispatcher } from 'undici';

export type { CallOptions, Pipeline } from './contract.js';
export { PIPELINE_MARKER } from './pipeline-marker.js';
export { defaultClassification, defaultRetryDecision } from './request-defaults.js';

export function isPipeline(value: unknown): value is Pipeline {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PIPELINE_MARKER] === true;
}

export interface PipelineOptions {
  endpoints: EndpointConfig[];
  models: ModelsConfig;
  /** Policy plugins and providers, applied in order. */
  plugins?: (Plugin | ProviderV1)[];
  providers?: ProviderV1[];
  clock?: Clock;
  random?: RandomSource;
  /** A store the caller owns (shared across reloads), or `{ use, owned: true }` to have the pipeline close it. */
  store?: StateStore | Owned<StateStore>;
  /** A transport the caller owns, or `{ use, owned: true }` to have the pipeline close it. */
  transport?: Transport | Owned<Transport>;
  /** Shorthand for `transport: createUndiciTransport({ dispatcher })` (the dispatcher stays the caller's). */
  dispatcher?: Dispatcher;
  /** Default request deadline (ms). */
  deadlineMs?: number;
  /** Idempotency keys while a shared store is down (idempotency.ts): `refuse` (the default) or `local`. */
  idempotency?: { whenStoreUnavailable?: IdempotencyFallback };
  /** How much of a vendor's answer is read before the attempt fails over (response-limits.ts); unset fields keep their defaults. */
  responseLimits?: Partial<ResponseLimits>;
  /**
   * Mid-stream continuation. `maxBytes`: how much of a pass-through stream is kept so a cut
   * after the commit point can continue with the text so far (kept-stream.ts; default 1 MiB).
   * A stream cut past it ends with its error event instead.
   */
  continuation?: { maxBytes?: number };
}

/** A resource handed to a pipeline that the pipeline closes when it closes. */
export interface Owned<T> {
  use: T;
  owned: true;
}

function isOwned<T extends object>(value: T | Owned<T> | undefined): value is Owned<T> {
  return value !== undefined && (value as Partial<Owned<T>>).owned === true && 'use' in value;
}

/** Who closes what: a pipeline closes what it created and what it was handed with `owned: true`. */
function resource<T extends object>(given: T | Owned<T> | undefined, create: () => T): { value: T; owned: boolean } {
  if (given === undefined) return { value: create(), owned: true };
  return isOwned(given) ? { value: given.use, owned: true } : { value: given, owned: false };
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { endpoints, models } = validateEndpointsAndModels(options.endpoints, options.models);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const ownedStore = resource(options.store, () => new MemoryStateStore(clock));
  const ownedTransport = resource(options.transport, () => createUndiciTransport({ dispatcher: options.dispatcher }));
  const store = ownedStore.value;
  const transport = ownedTransport.value;
  const hooks = createPipelineHooks();
  tapDefaultContinuation(hooks);
  const events = new SwitchyardEventBus();
  const providers = new Map<string, ProviderV1>();
  const plugins: Plugin[] = [];
  const env: CallEnv = { transport, events, responseLimits: { ...DEFAULT_RESPONSE_LIMITS, ...options.responseLimits }, continuationMaxBytes: options.continuation?.maxBytes ?? DEFAULT_CONTINUATION_MAX_BYTES };
  const defaultDeadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const whenStoreUnavailable = options.idempotency?.whenStoreUnavailable ?? 'refuse';
  let candidateCache: Map<string, Candidate[]> | undefined;
  /** Some provider checks what it can express (`unsupported`): requests are checked before routing. */
  let providersCheck = false;
  let closing: Promise<void> | undefined;

  containRecordTaps(hooks, events);

  const pipeline: Pipeline = {
    [PIPELINE_MARKER]: true,
    hooks,
    events,
    clock,
    random,
    store,
    endpoints,
    models,
    providers,
    plugins,
    transport,
    ready: Promise.resolve(),
    chat: (request, callOptions) => execute('chat', request, callOptions) as Promise<ChatResult>,
    stream: (request, callOptions) => execute('stream', request, callOptions) as Promise<ChatStream>,
    embeddings: (request, callOptions) => execute('embeddings', request, callOptions) as Promise<EmbeddingResult>,
    modelNames: () => Object.keys(models),
    candidatesFor: (model) => candidates().get(model) ?? [],
    registerProvider(provider) {
      if (provider.specificationVersion !== 'v1') {
        throw new SwitchyardError('plugin', `provider ${provider.id} implements specification ${String(provider.specificationVersion)}; this core speaks v1`, { code: 'SWITCHYARD_ERR_PROVIDER_VERSION' });
      }
      if (providers.has(provider.id)) return;
      providers.set(provider.id, provider);
      candidateCache = undefined;
      if (provider.unsupported) providersCheck = true;
      hooks.call.for(provider.id).tapPromise({ name: `switchyard:provider:${provider.id}`, stage: STAGE.DEFAULT }, (attempt, ctx) => callProvider(env, provider, attempt, ctx));
    },
    close() {
      closing ??= (async () => {
        events.emit('pipeline:close');
        // Plugins' background writes end before the store they write to closes (a failing tap is reported and contained: containRecordTaps).
        if (hooks.close.taps.length > 0) await hooks.close.promise();
        // A store or transport passed in without `owned: true` may be shared (a gateway reload): its owner closes it.
        if (ownedTransport.owned) await transport.close?.();
        if (ownedStore.owned) await store.close?.();
      })();
      return closing;
    },
  };

  const candidates = () => (candidateCache ??= buildCandidates(models, endpoints, providers));

  for (const provider of options.providers ?? []) pipeline.registerProvider(provider);
  const pending: Promise<void>[] = [];
  const applied = new Set<string>();
  // Providers first, so every plugin sees every provider id when it is applied.
  for (const item of options.plugins ?? []) if (isProvider(item)) pipeline.registerProvider(item);
  for (const item of options.plugins ?? []) {
    if (isProvider(item)) continue;
    if (!isPlugin(item)) {
      throw new SwitchyardError('plugin', `plugins[${(options.plugins ?? []).indexOf(item)}] is neither a plugin nor a provider (make it with definePlugin() or defineProvider())`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID' });
    }
    checkPluginCompatibility(item, applied);
    const result = item.apply(pipeline);
    if (result && typeof (result as Promise<void>).then === 'function') pending.push(result as Promise<void>);
    plugins.push(item);
    applied.add(item.name);
  }
  for (const endpoint of endpoints) {
    if (endpoint.enabled !== false && !providers.has(endpoint.provider)) {
      throw new SwitchyardError('config', `endpoints.${endpoint.name}.provider: no provider "${endpoint.provider}" is registered (add its package to plugins)`, { code: 'SWITCHYARD_ERR_CONFIG', path: `endpoints.${endpoint.name}.provider` });
    }
  }
  (pipeline as { ready: Promise<void> }).ready = Promise.all(pending).then(() => undefined);
  Object.freeze(pipeline);

  /**
   * Not async: the request run's own promise is handed back (an async layer returning it cost a
   * promise and two microtasks per request); whatever the checks throw is a rejection, as from
   * an async function.
   */
  function execute(mode: RequestMode, request: unknown, callOptions: CallOptions = {}): Promise<ChatResponse | ChatStream | EmbeddingResponse> {
    try {
      return checkedRun(mode, request, callOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function checkedRun(mode: RequestMode, request: unknown, callOptions: CallOptions): Promise<ChatResponse | ChatStream | EmbeddingResponse> {
    if (mode === 'embeddings') validateEmbeddingRequest(request, callOptions.limits);
    else validateChatRequest(request, callOptions.limits);
    const model = (request as ChatRequest).model;
    const configured = candidates().get(model);
    if (!configured) {
      throw new SwitchyardError('unknown-model', `unknown model "${model}"; this pipeline serves: ${Object.keys(models).join(', ') || '(none)'}`, { status: 404, path: 'model' });
    }
    const skipped: SkippedCandidate[] = [];
    let usable: readonly Candidate[];
    try {
      usable = mode === 'embeddings' ? configured : expressibleCandidates(request as ChatRequest, configured, providers, providersCheck, skipped);
    } finally {
      if (skipped.length > 0) {
        callOptions = withField(callOptions, 'requestId', callOptions.requestId ?? newRequestId());
        for (const s of skipped) events.emit('candidate:skipped', { requestId: callOptions.requestId!, model, candidate: candidateRef(s.candidate), path: s.path, reason: s.reason, feature: s.feature });
      }
    }
    // Plugins still loading: the run starts once they are (the checks above need none of them).
    const run = () => startRun(mode, request as ChatRequest, callOptions, usable, skipped, model);
    return pending.length ? pipeline.ready.then(run) : run();
  }

  function startRun(mode: RequestMode, request: ChatRequest, callOptions: CallOptions, usable: readonly Candidate[], skipped: SkippedCandidate[], model: string): Promise<ChatResponse | ChatStream | EmbeddingResponse> {
    const { caller } = callOptions;
    const asked = mode === 'embeddings' ? request : withCallerHints(request, caller);
    const start = () => new RequestRun(pipeline, mode, asked, usable, callOptions, defaultDeadlineMs, skipped).execute();
    if (callOptions.idempotencyKey !== undefined && mode !== 'embeddings') {
      return runIdempotent({
        store,
        clock,
        key: callOptions.idempotencyKey,
        // One caller's key never replays another caller's answer.
        owner: caller?.keyId,
        mode,
        request: asked,
        deadlineMs: callOptions.deadlineMs ?? defaultDeadlineMs,
        signal: callOptions.signal && signalOf(callOptions.signal),
        whenStoreUnavailable,
        onUnshared: (reason) => pipeline.events.emit('idempotency:unshared', { requestId: callOptions.requestId, model, reason }),
        run: start as () => Promise<ChatResponse | ChatStream>,
      });
    }
    return start();
  }

  return pipeline;
}
