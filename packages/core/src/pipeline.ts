/**
 * createPipeline(): the request lifecycle (docs/lifecycle.md). The core decides nothing on its
 * own beyond safe defaults: candidates in priority order, the next candidate on a failure that
 * is not the request's fault. Policy plugins replace those defaults through the hooks.
 */
import { systemClock, sleep, type Clock, type RandomSource } from './clock.js';
import { RequestTimer } from './attempt-timer.js';
import { buildCandidates, DEFAULT_DEADLINE_MS } from './candidates.js';
import type { RequestContext, RequestState, RunAttemptOptions } from './context.js';
import { isSwitchyardError, outcomeOf, SwitchyardError, toSwitchyardError } from './errors.js';
import { SwitchyardEventBus } from './events.js';
import { createPipelineHooks, STAGE, type Attempt, type AttemptOutcome, type AttemptResult, type Classification, type PipelineHooks, type RequestOutcome, type RetryDecision } from './hooks.js';
import { checkPluginCompatibility, isPlugin, type Plugin } from './plugin.js';
import { isProvider, type ProviderV1 } from './provider.js';
import { attributeError, callProvider, type CallEnv } from './provider-call.js';
import { MemoryStateStore, type StateStore } from './state-store.js';
import { createUndiciTransport, type Transport } from './transport.js';
import { ResponseAccumulator, responseToParts } from './aggregate.js';
import { ChatStream, type StreamInfo } from './chat-stream.js';
import { validateChatRequest, validateEmbeddingRequest } from './validate-request.js';
import { validateEndpointsAndModels } from './config-schema.js';
import type { Candidate, ChatRequest, ChatResponse, ChatResult, EmbeddingRequest, EmbeddingResponse, EmbeddingResult, EndpointConfig, ModelsConfig, StreamPart } from './types.js';
import type { Dispatcher } from 'undici';

export const PIPELINE_MARKER = Symbol.for('switchyard.pipeline');

export interface PipelineOptions {
  endpoints: EndpointConfig[];
  models: ModelsConfig;
  /** Policy plugins and providers, applied in order. */
  plugins?: (Plugin | ProviderV1)[];
  providers?: ProviderV1[];
  clock?: Clock;
  random?: RandomSource;
  store?: StateStore;
  transport?: Transport;
  /** Shorthand for `transport: createUndiciTransport({ dispatcher })`. */
  dispatcher?: Dispatcher;
  /** Default request deadline (ms). */
  deadlineMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Total time for the request, across every attempt and wait (default 120 s). */
  deadlineMs?: number;
  requestId?: string;
  traceparent?: string;
}

export interface Pipeline {
  readonly [PIPELINE_MARKER]: true;
  readonly hooks: PipelineHooks;
  readonly events: SwitchyardEventBus;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly store: StateStore;
  readonly endpoints: readonly EndpointConfig[];
  readonly models: ModelsConfig;
  readonly providers: ReadonlyMap<string, ProviderV1>;
  readonly plugins: readonly Plugin[];
  readonly transport: Transport;
  /** Resolves when every plugin's asynchronous setup is done. */
  readonly ready: Promise<void>;
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  /** Resolves at the stream's commit point (or rejects if every candidate failed before it). */
  stream(request: ChatRequest, options?: CallOptions): Promise<ChatStream>;
  embeddings(request: EmbeddingRequest, options?: CallOptions): Promise<EmbeddingResult>;
  /** The logical models this pipeline serves. */
  modelNames(): string[];
  /** The configured candidates of a logical model, in priority order. */
  candidatesFor(model: string): readonly Candidate[];
  registerProvider(provider: ProviderV1): void;
  close(): Promise<void>;
}

export function isPipeline(value: unknown): value is Pipeline {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PIPELINE_MARKER] === true;
}

let requestCounter = 0;
function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `req_${Date.now().toString(36)}${requestCounter.toString(36).padStart(5, '0')}`;
}

const TIMEOUT_KINDS = new Set(['timeout', 'ttft-timeout', 'idle-timeout']);

/** What happens after a failure when no retry plugin decides (DESIGN.md, outcome classes). */
export function defaultRetryDecision(outcome: AttemptOutcome): RetryDecision {
  switch (outcome.outcome) {
    case 'request-failure':
      return { action: 'fail', reason: 'the request itself was rejected' };
    case 'ignored':
      return { action: 'fail', reason: 'cancelled' };
    default:
      return { action: 'next', reason: outcome.error?.kind ?? 'failure' };
  }
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { endpoints, models } = validateEndpointsAndModels(options.endpoints, options.models);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const store = options.store ?? new MemoryStateStore(clock);
  const transport = options.transport ?? createUndiciTransport({ dispatcher: options.dispatcher });
  const hooks = createPipelineHooks();
  const events = new SwitchyardEventBus();
  const providers = new Map<string, ProviderV1>();
  const plugins: Plugin[] = [];
  const env: CallEnv = { transport, events };
  const defaultDeadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  let candidateCache: Map<string, Candidate[]> | undefined;
  let closing: Promise<void> | undefined;

  // Observers never fail a request: every record tap is contained and reported.
  for (const [stage, hook] of [['recordAttempt', hooks.recordAttempt], ['recordRequest', hooks.recordRequest]] as const) {
    hook.intercept({
      register: (tap) => {
        const fn = tap.fn as (...args: unknown[]) => Promise<void>;
        return {
          ...tap,
          fn: async (...args: unknown[]) => {
            try {
              await fn(...args);
            } catch (error) {
              events.emit('plugin-error', { plugin: tap.name, stage, error });
            }
          },
        };
      },
    });
  }

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
      hooks.call.for(provider.id).tapPromise({ name: `switchyard:provider:${provider.id}`, stage: STAGE.DEFAULT }, (attempt, ctx) => callProvider(env, provider, attempt, ctx));
    },
    close() {
      closing ??= (async () => {
        events.emit('pipeline:close');
        // A store or transport passed in may be shared (a gateway reload): its owner closes it.
        if (!options.transport) await transport.close?.();
        if (!options.store) await store.close?.();
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

  async function execute(mode: 'chat' | 'stream' | 'embeddings', request: unknown, callOptions: CallOptions = {}): Promise<ChatResponse | ChatStream | EmbeddingResponse> {
    if (mode === 'embeddings') validateEmbeddingRequest(request);
    else validateChatRequest(request);
    const model = (request as ChatRequest).model;
    const configured = candidates().get(model);
    if (!configured) {
      throw new SwitchyardError('unknown-model', `unknown model "${model}"; this pipeline serves: ${Object.keys(models).join(', ') || '(none)'}`, { status: 404, path: 'model' });
    }
    if (pending.length) await pipeline.ready;
    const run = new RequestRun(pipeline, env, mode, request as ChatRequest, configured, callOptions, defaultDeadlineMs);
    return run.execute();
  }

  return pipeline;
}

/** One request's journey through the stages. */
class RequestRun {
  readonly ctx: RequestContext;
  /** Why the request was aborted (caller, deadline), once it was. */
  private abortReason: SwitchyardError | undefined;
  /** Created on first use: most requests never need a request-level signal object. */
  private controller: AbortController | undefined;
  private readonly timer: RequestTimer;
  private readonly hooks: PipelineHooks;
  private readonly clock: Clock;
  private early: ChatResponse | undefined;
  private attemptNumber = 0;
  private timerBusy = false;
  private readonly activeAttempts = new Set<AbortController>();
  /** Results and errors of plugin-run attempts, so a tap can hand them over to the core. */
  private readonly handedOver = new WeakMap<object, AttemptBase>();
  private readonly recordedFailures = new WeakMap<SwitchyardError, AttemptOutcome>();
  private disposed = false;
  private degradedLevel: string | undefined;
  private readonly removeCallerAbort: () => void;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly env: CallEnv,
    private readonly mode: 'chat' | 'stream' | 'embeddings',
    request: ChatRequest,
    private readonly configured: readonly Candidate[],
    options: CallOptions,
    defaultDeadlineMs: number,
  ) {
    this.hooks = pipeline.hooks;
    this.clock = pipeline.clock;
    const startedAt = this.clock.now();
    const deadlineAt = startedAt + (options.deadlineMs ?? defaultDeadlineMs);
    this.timer = new RequestTimer(this.clock, deadlineAt, (error) => this.abortRequest(error));
    const caller = options.signal;
    const onCallerAbort = () => this.abortRequest(new SwitchyardError('cancelled', 'request was cancelled by the caller', { cause: caller?.reason }));
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    this.removeCallerAbort = () => caller?.removeEventListener('abort', onCallerAbort);
    const stream = this.mode === 'stream';
    const attempts: AttemptOutcome[] = [];
    const state: RequestState = {};
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const run = this;
    this.ctx = {
      id: options.requestId ?? newRequestId(),
      kind: mode === 'embeddings' ? 'embeddings' : 'chat',
      request,
      model: request.model,
      stream,
      startedAt,
      deadlineAt,
      get signal() {
        return run.requestSignal();
      },
      clock: this.clock,
      random: pipeline.random,
      pipeline,
      traceparent: options.traceparent,
      classification: defaultClassification(request, stream),
      candidates: [],
      remaining: [],
      attempts,
      state,
      respond(response) {
        run.early = response;
      },
      runAttempt: (candidate, opts) => this.runAttempt(candidate, opts),
      timeLeft: () => this.timer.remainingMs(),
      errors: () => attempts.filter((a) => a.error).map((a) => a.error!),
    };
  }

  async execute(): Promise<ChatResponse | ChatStream | EmbeddingResponse> {
    const { ctx } = this;
    const events = this.pipeline.events;
    if (events.listenerCount('request:start')) events.emit('request:start', { requestId: ctx.id, model: ctx.model, stream: ctx.stream });
    let handedOver = false;
    try {
      if (this.hooks.classify.taps.length) ctx.classification = await this.hooks.classify.promise(ctx.classification, ctx);
      if (!this.early) {
        ctx.candidates = this.hooks.route.taps.length ? await this.hooks.route.promise([...this.configured], ctx.classification, ctx) : [...this.configured];
        ctx.remaining = [...ctx.candidates];
      }
      if (this.early) return this.finishEarly(this.early);
      const result = await this.tryCandidates();
      if (result.type === 'stream') {
        handedOver = true;
        return this.commitStream(result.candidate, result.result, result.outcomeBase);
      }
      return this.finishResponse(result.result, result.candidate);
    } catch (error) {
      const err = toSwitchyardError(error);
      await this.recordRequest({ ok: false, error: err });
      throw err;
    } finally {
      if (!handedOver) this.dispose();
    }
  }

  /** The request's abort signal (plugins' sleeps, ctx.signal). */
  requestSignal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Aborts the request and every attempt still running (no per-attempt listeners needed). */
  private abortRequest(reason: SwitchyardError): void {
    if (this.abortReason) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
    for (const attempt of this.activeAttempts) attempt.abort(reason);
  }

  /** Releases the request's timer and the caller's abort listener (once). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.timer.dispose();
    this.removeCallerAbort();
  }


  private info(candidate: Candidate | undefined, startedAt = this.ctx.startedAt) {
    return {
      endpoint: candidate?.endpoint.name ?? 'none',
      deployment: candidate?.deploymentId ?? 'none',
      provider: candidate?.provider ?? 'none',
      attempts: this.ctx.attempts.length,
      latencyMs: this.clock.now() - startedAt,
      ...(this.degradedLevel ? { degraded: this.degradedLevel } : {}),
    };
  }

  private async finishEarly(response: ChatResponse): Promise<ChatResponse | ChatStream> {
    const labelled: ChatResponse = { ...response, switchyard: { ...this.info(undefined), ...response.switchyard, attempts: 0 } };
    await this.recordRequest({ ok: true, response: labelled });
    if (this.mode !== 'stream') return labelled;
    const parts = responseToParts(labelled);
    return new ChatStream(toIterator(parts), streamInfo(labelled));
  }

  private async finishResponse(result: AttemptResult, candidate: Candidate): Promise<ChatResponse | EmbeddingResponse | ChatStream> {
    if (result.type === 'stream') throw new Error('unreachable');
    const response = { ...result.response, switchyard: { ...this.info(candidate), ...(result.response as ChatResponse).switchyard } };
    await this.recordRequest({ ok: true, response: response as ChatResponse });
    if (this.mode === 'stream') {
      // A degrade-stage answer (stale cache, canned text) for a stream request.
      return new ChatStream(toIterator(responseToParts(response as ChatResponse)), streamInfo(response as ChatResponse));
    }
    return response;
  }

  async recordRequest(partial: Pick<RequestOutcome, 'ok' | 'response' | 'error'>): Promise<void> {
    const outcome: RequestOutcome = {
      ...partial,
      model: this.ctx.model,
      stream: this.ctx.stream,
      attempts: this.ctx.attempts,
      latencyMs: this.clock.now() - this.ctx.startedAt,
      degraded: this.degradedLevel,
    };
    if (this.hooks.recordRequest.taps.length) await this.hooks.recordRequest.promise(outcome, this.ctx);
    const events = this.pipeline.events;
    if (events.listenerCount('request:end')) events.emit('request:end', { ...outcome, requestId: this.ctx.id });
  }

  /** The retry / failover loop, then the degrade stage. */
  private async tryCandidates(): Promise<{ type: 'response' | 'stream'; result: AttemptResult; candidate: Candidate; outcomeBase: AttemptBase }> {
    const { ctx } = this;
    let current = ctx.remaining.shift();
    let stopError: SwitchyardError | undefined;
    while (current) {
      if (this.abortReason !== undefined) break;
      ctx.current = current;
      const base = this.startAttempt(current, { initiator: 'core' });
      const settled = await this.settleAttempt(base);
      if (settled.ok) return { type: settled.result.type === 'stream' ? 'stream' : 'response', result: settled.result, candidate: settled.base.candidate, outcomeBase: settled.base };
      const outcome = settled.outcome;
      if (outcome.outcome === 'ignored' && this.abortReason !== undefined) break;
      let decision = (await this.hooks.retry.promise(outcome, ctx)) ?? defaultRetryDecision(outcome);
      const error = outcome.error!;
      if (decision.action === 'retry') {
        const target = decision.candidate ?? current;
        // A silent endpoint is never retried on the same route.
        if (target.id === current.id && TIMEOUT_KINDS.has(error.kind)) decision = { action: 'next', reason: 'silent endpoint' };
        // A retry that cannot finish before the deadline is not started.
        else if (decision.delayMs >= this.timer.remainingMs()) decision = { action: 'next', reason: 'retry would pass the deadline' };
      }
      if (decision.action === 'retry') {
        const target = decision.candidate ?? current;
        this.pipeline.events.emit('retry', { requestId: ctx.id, attempt: outcome.attempt, candidate: target, delayMs: decision.delayMs, reason: decision.reason ?? error.kind });
        try {
          await sleep(this.clock, decision.delayMs, this.requestSignal());
        } catch {
          break;
        }
        current = target;
        continue;
      }
      if (decision.action === 'fail') {
        stopError = error;
        break;
      }
      const next = ctx.remaining.shift();
      if (next) this.pipeline.events.emit('failover', { requestId: ctx.id, from: current, to: next, error });
      current = next;
    }
    const failure = this.failureError(stopError);
    if (this.abortReason && (failure.kind === 'cancelled' || this.abortReason.kind === 'cancelled')) throw failure;
    return this.degrade(failure);
  }

  private failureError(stopError?: SwitchyardError): SwitchyardError {
    const errors = this.ctx.errors();
    const reason = this.abortReason;
    if (reason?.kind === 'cancelled') return attach(reason, errors);
    // A request failure reaches the caller as the vendor said it (status and reason).
    if (stopError && outcomeOf(stopError) === 'request-failure') return attach(stopError, errors);
    if (errors.length === 0) {
      if (reason) return reason;
      return new SwitchyardError('no-candidate', `no candidate can serve model "${this.ctx.model}" right now (all filtered out by policies)`, { status: 503 });
    }
    const last = errors[errors.length - 1];
    const summary = errors.map((e) => `${e.deployment ?? e.endpoint ?? '?'}: ${e.kind}${e.status ? ` ${e.status}` : ''}`).join('; ');
    const prefix = reason ? `${reason.message} after ${errors.length} attempt(s)` : `all ${errors.length} attempt(s) failed`;
    return new SwitchyardError('all-candidates-failed', `${prefix} for model "${this.ctx.model}": ${summary}`, {
      status: reason ? 504 : last.status && last.status >= 500 ? 503 : last.kind === 'rate-limit' ? 429 : 502,
      retryAfterMs: last.retryAfterMs,
      attempts: errors,
      retryable: true,
      cause: last,
    });
  }

  private async degrade(error: SwitchyardError): Promise<{ type: 'response' | 'stream'; result: AttemptResult; candidate: Candidate; outcomeBase: AttemptBase }> {
    // When a level's extra candidates all fail, the stage runs again with the new error so a
    // plugin can offer its next level; a level offered twice ends the stage.
    const offered = new Set<string>();
    let failure = error;
    for (;;) {
      const degraded = await this.hooks.degrade.promise(failure, this.ctx);
      if (!degraded || offered.has(degraded.level)) throw failure;
      offered.add(degraded.level);
      this.degradedLevel = degraded.level;
      this.pipeline.events.emit('degraded', { requestId: this.ctx.id, level: degraded.level });
      if ('response' in degraded) {
        const response: ChatResponse = { ...degraded.response, switchyard: { ...this.info(undefined), ...degraded.response.switchyard, degraded: degraded.level } };
        return { type: 'response', result: { type: 'response', response }, candidate: syntheticCandidate(degraded.level), outcomeBase: undefined as never };
      }
      for (const candidate of degraded.candidates) {
        if (this.abortReason !== undefined) break;
        const base = this.startAttempt({ ...candidate, degradeLevel: degraded.level }, { initiator: 'degrade' });
        const settled = await this.settleAttempt(base);
        if (settled.ok) return { type: settled.result.type === 'stream' ? 'stream' : 'response', result: settled.result, candidate: settled.base.candidate, outcomeBase: settled.base };
      }
      failure = this.failureError();
      if (this.abortReason !== undefined) throw failure;
    }
  }

  /* ------------------------------------------------------------------ attempts */

  /**
   * An attempt a plugin starts itself. It is recorded like any other; a call tap that answers
   * with its result (or rethrows its error) hands the attempt over, and the core records it
   * once. A stream that no one hands over is recorded when its reader finishes.
   */
  runAttempt(candidate: Candidate, options: RunAttemptOptions = {}): Promise<AttemptResult> {
    const base = this.startAttempt(candidate, { initiator: options.initiator ?? 'plugin', signal: options.signal, request: options.request });
    return this.settleAttempt(base).then((settled) => {
      if (!settled.ok) {
        this.recordedFailures.set(settled.outcome.error!, settled.outcome);
        throw settled.outcome.error;
      }
      const result = settled.result;
      if (result.type !== 'stream') {
        this.handedOver.set(result, base);
        return result;
      }
      const wrapped = { ...result, rest: this.recordWhenRead(base, result) };
      this.handedOver.set(wrapped, base);
      return wrapped;
    });
  }

  /** Records a plugin-run stream when its reader finishes, unless the core took it over. */
  private async *recordWhenRead(base: AttemptBase, result: Extract<AttemptResult, { type: 'stream' }>): AsyncGenerator<StreamPart, void, undefined> {
    let finished = result.head.some((p) => p.type === 'finish');
    let error: SwitchyardError | undefined;
    const acc = new ResponseAccumulator();
    try {
      for (;;) {
        const next = await result.rest.next();
        if (next.done) break;
        if (next.value.type === 'finish') finished = true;
        if (next.value.type === 'error') error = next.value.error;
        acc.add(next.value);
        yield next.value;
      }
    } catch (caught) {
      error = attributeError(this.abortAware(caught, base.controller.signal), base.candidate);
      throw error;
    } finally {
      if (!base.takenOver) {
        if (!error && !finished) error = new SwitchyardError('cancelled', 'stream was closed by the plugin that started it');
        const outcome = this.outcome(base, error, undefined, 'post-commit', acc.usage);
        base.release();
        await this.recordAttempt(outcome);
      }
    }
  }

  private startAttempt(candidate: Candidate, opts: { initiator: string; signal?: AbortSignal; request?: ChatRequest | EmbeddingRequest }): AttemptBase {
    const number = ++this.attemptNumber;
    const controller = new AbortController();
    if (this.abortReason) controller.abort(this.abortReason);
    else this.activeAttempts.add(controller);
    let unlink: (() => void) | undefined;
    const extra = opts.signal;
    if (extra?.aborted) controller.abort(extra.reason);
    else if (extra) {
      const forward = () => controller.abort(extra.reason);
      extra.addEventListener('abort', forward, { once: true });
      unlink = () => extra.removeEventListener('abort', forward);
    }
    // The request's single timer serves the core's attempt; concurrent plugin attempts (hedges) get their own.
    const useShared = !this.timerBusy;
    if (useShared) this.timerBusy = true;
    const timer = useShared ? this.timer : new RequestTimer(this.clock, Number.POSITIVE_INFINITY, () => undefined);
    const timeouts = { ...candidate.timeouts, ...(this.ctx.request as ChatRequest).switchyard?.timeouts };
    const stream = this.mode === 'stream';
    const startedAt = this.clock.now();
    let released = false;
    const base: AttemptBase = {
      number,
      candidate,
      controller,
      startedAt,
      stream,
      initiator: opts.initiator,
      ttftMs: undefined,
      headers: undefined,
      takenOver: false,
      release: () => {
        if (released) return;
        released = true;
        this.activeAttempts.delete(controller);
        unlink?.();
        if (useShared) {
          this.timer.clearAttempt();
          this.timerBusy = false;
        } else timer.dispose();
      },
      timer,
    };
    const attempt: Attempt = {
      number,
      candidate,
      request: opts.request ?? this.ctx.request,
      stream,
      signal: controller.signal,
      startedAt,
      initiator: opts.initiator,
      headersReceived: () => {
        if (stream) timer.setPhase('first-token', Math.max(0, timeouts.firstTokenMs - (this.clock.now() - startedAt)), controller);
      },
      chunkReceived: () => timer.touch(),
      committed: () => {
        base.ttftMs = this.clock.now() - startedAt;
        timer.setPhase('idle', timeouts.idleMs, controller);
      },
    };
    base.attempt = attempt;
    timer.setPhase(stream ? 'headers' : 'attempt', stream ? Math.min(timeouts.headersMs, timeouts.firstTokenMs) : timeouts.attemptMs, controller);
    const events = this.pipeline.events;
    if (events.listenerCount('attempt:start')) events.emit('attempt:start', { requestId: this.ctx.id, attempt: number, candidate });
    return base;
  }

  private async settleAttempt(base: AttemptBase): Promise<{ ok: true; result: AttemptResult; base: AttemptBase } | { ok: false; outcome: AttemptOutcome }> {
    const { candidate } = base;
    let result: AttemptResult | undefined;
    let error: SwitchyardError | undefined;
    try {
      const hook = this.hooks.call.get(candidate.provider);
      if (!hook) throw new SwitchyardError('config', `no provider "${candidate.provider}" is registered`, { code: 'SWITCHYARD_ERR_CONFIG', retryable: false });
      result = await hook.promise(base.attempt!, this.ctx);
      if (!result) throw new SwitchyardError('plugin', `no call tap answered for provider "${candidate.provider}"`, { retryable: false });
    } catch (caught) {
      const handed = isSwitchyardError(caught) ? this.recordedFailures.get(caught) : undefined;
      if (handed) {
        // A plugin-run attempt failed and was recorded already; decide on its outcome.
        base.release();
        return { ok: false, outcome: handed };
      }
      error = attributeError(this.abortAware(caught, base.controller.signal), candidate);
    }
    const child = result ? this.handedOver.get(result) : undefined;
    if (child && child !== base) {
      // The tap answered with a plugin-run attempt (a hedge): that attempt is the real one.
      base.release();
      child.takenOver = true;
      return { ok: true, result: result!, base: child };
    }
    if (result && result.type === 'stream' && !error) {
      // Recorded when the stream ends (CommittedAttempt); the attempt keeps its timer.
      base.headers = result.headers;
      return { ok: true, result, base };
    }
    const outcome = this.outcome(base, error, result);
    base.release();
    await this.recordAttempt(outcome);
    if (error) return { ok: false, outcome };
    return { ok: true, result: result!, base };
  }

  /** Abort reasons carry the real cause (deadline, TTFT, caller); prefer them to a socket error. */
  abortAware(caught: unknown, signal: AbortSignal): SwitchyardError {
    if (signal.aborted && isSwitchyardError(signal.reason)) return signal.reason;
    return toSwitchyardError(caught);
  }

  outcome(base: AttemptBase, error: SwitchyardError | undefined, result?: AttemptResult, phase: 'pre-commit' | 'post-commit' = 'pre-commit', usage?: AttemptOutcome['usage']): AttemptOutcome {
    const responseUsage = result && result.type !== 'stream' ? (result.response.usage as AttemptOutcome['usage']) : undefined;
    return {
      attempt: base.number,
      candidate: base.candidate,
      ok: !error,
      outcome: error ? outcomeOf(error) : 'success',
      error,
      latencyMs: this.clock.now() - base.startedAt,
      ttftMs: base.ttftMs,
      usage: usage ?? responseUsage,
      headers: base.headers ?? (result && result.type !== 'stream' ? result.headers : undefined) ?? error?.headers,
      phase,
      stream: base.stream,
      initiator: base.initiator,
    };
  }

  async recordAttempt(outcome: AttemptOutcome): Promise<void> {
    this.ctx.attempts.push(outcome);
    if (this.hooks.recordAttempt.taps.length) await this.hooks.recordAttempt.promise(outcome, this.ctx);
    const events = this.pipeline.events;
    if (events.listenerCount('attempt:end')) events.emit('attempt:end', { ...outcome, requestId: this.ctx.id });
  }

  /* ------------------------------------------------------------------ committed streams */

  private commitStream(candidate: Candidate, result: AttemptResult, base: AttemptBase): ChatStream {
    if (result.type !== 'stream') throw new Error('unreachable');
    this.timer.releaseRequestDeadline();
    this.pipeline.events.emit('stream:commit', { requestId: this.ctx.id, candidate, ttftMs: base.ttftMs ?? 0 });
    const acc = new ResponseAccumulator();
    for (const part of result.head) acc.add(part);
    // The committing attempt is not recorded until the stream ends; it counts all the same.
    const info: StreamInfo = { ...this.info(candidate), attempts: this.ctx.attempts.length + 1, model: acc.model || candidate.model };
    const committed = new CommittedAttempt(this, candidate, result, base, acc);
    return new ChatStream(committed.parts(info), info, () => committed.abandon());
  }
}

/**
 * A stream after its commit point: relays the rest, records the attempt once when it ends
 * (success, failure or abandonment), offers a failure to `continueStream`, and otherwise ends
 * with an error part.
 */
class CommittedAttempt {
  private recorded = false;
  private done = false;

  constructor(
    private readonly run: RequestRun,
    private readonly candidate: Candidate,
    private readonly result: Extract<AttemptResult, { type: 'stream' }>,
    private readonly base: AttemptBase,
    private readonly acc: ResponseAccumulator,
  ) {}

  private async record(error?: SwitchyardError): Promise<void> {
    if (this.recorded) return;
    this.recorded = true;
    const outcome = this.run.outcome(this.base, error, undefined, 'post-commit', this.acc.usage);
    this.base.release();
    await this.run.recordAttempt(outcome);
  }

  /** The consumer stopped reading: abort the upstream; a cancellation counts against nobody. */
  async abandon(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const cancelled = new SwitchyardError('cancelled', 'stream was closed by the consumer');
    this.base.controller.abort(cancelled);
    await this.result.rest.return?.(undefined);
    await this.record(cancelled);
    this.run.dispose();
  }

  async *parts(info: StreamInfo): AsyncGenerator<StreamPart> {
    const { run, acc } = this;
    let failure: SwitchyardError | undefined;
    let finished = false;
    try {
      for (const part of this.result.head) {
        if (part.type === 'finish') finished = true;
        yield part;
      }
      try {
        for (;;) {
          const next = await this.result.rest.next();
          if (next.done) break;
          const part = next.value;
          if (part.type === 'error') throw part.error;
          acc.add(part);
          if (part.type === 'finish') finished = true;
          yield part;
        }
      } catch (error) {
        failure = attributeError(run.abortAware(error, this.base.controller.signal), this.candidate);
      }
      if (!failure && !finished) failure = attributeError(new SwitchyardError('stream-cut', 'stream ended without a finish signal'), this.candidate);
      // Release the upstream body now (an error event may leave the connection open).
      if (failure) await this.result.rest.return?.(undefined);
      await this.record(failure);
      if (failure && failure.kind !== 'cancelled') {
        const continuation = await run.ctx.pipeline.hooks.continueStream.promise({ error: failure, candidate: this.candidate, partial: acc.toResponse() }, run.ctx);
        if (continuation) {
          let continued = false;
          try {
            for await (const part of continuation) {
              if (part.type === 'error') throw part.error;
              acc.add(part);
              if (part.type === 'finish') continued = true;
              yield part;
            }
          } catch (error) {
            // The caller learns about the original failure, never a fallback's prefill rejection.
            run.ctx.pipeline.events.emit('plugin-error', { plugin: 'continueStream', stage: 'continueStream', error });
          }
          if (continued) failure = undefined;
        }
      }
      this.done = true;
      if (failure) {
        yield { type: 'error', error: failure };
        await run.recordRequest({ ok: false, error: failure });
      } else {
        const response = acc.toResponse();
        response.switchyard = { ...info, attempts: run.ctx.attempts.length, latencyMs: run.ctx.clock.now() - run.ctx.startedAt };
        await run.recordRequest({ ok: true, response });
      }
      run.dispose();
    } finally {
      if (!this.done) await this.abandon();
    }
  }
}

interface AttemptBase {
  number: number;
  candidate: Candidate;
  controller: AbortController;
  startedAt: number;
  stream: boolean;
  initiator: string;
  ttftMs: number | undefined;
  headers: Record<string, string> | undefined;
  /** A plugin-run attempt the core now owns (hedge winner): the core records it. */
  takenOver: boolean;
  release(): void;
  timer: RequestTimer;
  attempt?: Attempt;
}

function attach(error: SwitchyardError, attempts: SwitchyardError[]): SwitchyardError {
  if (!error.attempts && attempts.length > 0) (error as { attempts?: SwitchyardError[] }).attempts = attempts;
  return error;
}

function syntheticCandidate(level: string): Candidate {
  return {
    id: `degrade/${level}`,
    deploymentId: `degrade/${level}`,
    endpoint: { name: `degrade:${level}`, provider: 'degrade' },
    deployment: { endpoint: `degrade:${level}`, model: level },
    provider: 'degrade',
    model: level,
    keyIndex: 0,
    keyId: 'none',
    priority: 0,
    weight: 0,
    capabilities: new Set(),
    timeouts: { headersMs: 0, firstTokenMs: 0, idleMs: 0, attemptMs: 0 },
    degradeLevel: level,
  };
}

function streamInfo(response: ChatResponse): StreamInfo {
  const s = response.switchyard;
  return {
    endpoint: s?.endpoint ?? 'none',
    deployment: s?.deployment ?? 'none',
    provider: s?.provider ?? 'none',
    attempts: s?.attempts ?? 0,
    model: response.model,
    degraded: s?.degraded,
    stale: s?.stale,
    cached: s?.cached,
  };
}

async function* toIterator(parts: StreamPart[]): AsyncGenerator<StreamPart> {
  yield* parts;
}

export function defaultClassification(request: ChatRequest, stream: boolean): Classification {
  let chars = 0;
  for (const m of request.messages ?? []) {
    if (typeof m.content === 'string') chars += m.content.length;
    else if (Array.isArray(m.content)) for (const p of m.content) if (typeof (p as { text?: unknown }).text === 'string') chars += (p as { text: string }).text.length;
  }
  return {
    tier: request.switchyard?.tier,
    capabilities: new Set(),
    estimatedInputTokens: Math.ceil(chars / 4),
    costTolerance: request.switchyard?.costTolerance,
    stream,
    commit: 'first-token',
  };
}
