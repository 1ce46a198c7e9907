/**
 * Active probes at three depths, each on its own jittered timer on the pipeline clock:
 * `reachability` (the provider's cheap `probe()` request, or a GET of a configured path),
 * `completion` (a real tiny chat through the provider codec) and `quality` (a small test set
 * whose answers are checked). Settings come per deployment from the probe plan.
 */
import { isSwitchyardError, outcomeOf, SwitchyardError, toSwitchyardError, type Candidate, type ChatRequest, type ChatResponse, type Pipeline, type ProviderHttpResponse, type ProviderRequest, type ProviderV1, type TimerHandle } from '@switchyard/core';
import { applyErrorRules } from '@switchyard/core/internal';
import { readBodyText, toWireRequest } from '@switchyard/core/wire';
import { checkAnswer } from './answer-checks.js';
import type { DepthSettings, ProbeDepth, QualityCase } from './options.js';
import { PROBE_DEPTHS } from './options.js';
import { uniformPlan, type ProbePlan } from './probe-plan.js';

export { answerMatches } from './answer-checks.js';

export interface QualityCaseResult {
  name: string;
  ok: boolean;
  /** Why the answer failed its check. */
  reason?: string;
  answer: string;
  latencyMs: number;
}

/** What a quality probe saw: the answering model and every case's answer. */
export interface QualityRun {
  /** The `model` the vendor says answered (the last case's). */
  model?: string;
  cases: QualityCaseResult[];
  /** Tokens the run spent, as the vendor reported them. */
  tokens: number;
}

export interface ProbeResult {
  deployment: string;
  depth: ProbeDepth;
  ok: boolean;
  latencyMs: number;
  /** `endpoint` failures count against health; `probe` ones mean the probe itself is wrong (e.g. a 400). */
  failure?: 'endpoint' | 'probe';
  error?: SwitchyardError;
  /** Quality probes that got every answer: what they were. */
  quality?: QualityRun;
}

/** One HTTP exchange of a probe and how long it took. */
interface Exchange {
  http: ProviderHttpResponse;
  latencyMs: number;
}

export class Prober {
  private readonly timers = new Set<TimerHandle>();
  private readonly inFlight = new Set<AbortController>();
  private readonly running = new Set<string>();
  private readonly plan: ProbePlan;
  private stopped = false;

  constructor(
    private readonly pipeline: Pipeline,
    /** The probe plan, or the same depth settings for every deployment. */
    plan: ProbePlan | Partial<DepthSettings>,
    private readonly onResult: (result: ProbeResult) => void,
  ) {
    this.plan = 'settings' in plan && typeof plan.settings === 'function' ? (plan as ProbePlan) : uniformPlan(plan as Partial<DepthSettings>);
  }

  /** The depths that run on at least one deployment. */
  get configured(): ProbeDepth[] {
    const targets = this.targets();
    return PROBE_DEPTHS.filter((depth) => targets.some((t) => this.plan.settings(t, depth) !== undefined));
  }

  /** One candidate per deployment (its first key), across every logical model. */
  targets(): Candidate[] {
    const seen = new Map<string, Candidate>();
    for (const model of this.pipeline.modelNames()) for (const c of this.pipeline.candidatesFor(model)) if (!seen.has(c.deploymentId)) seen.set(c.deploymentId, c);
    return [...seen.values()];
  }

  /** Starts every configured probe, each at a random offset inside its first interval. */
  start(): void {
    const targets = this.targets();
    for (const depth of PROBE_DEPTHS) {
      for (const target of targets) {
        const settings = this.plan.settings(target, depth);
        if (settings) this.schedule(target, depth, this.pipeline.random() * settings.intervalMs);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const handle of this.timers) this.pipeline.clock.clearTimeout(handle);
    this.timers.clear();
    for (const controller of this.inFlight) controller.abort(new SwitchyardError('cancelled', 'health probes stopped'));
  }

  /** Runs the configured probes (or the given depths) of every deployment once, now. */
  async runAll(depths: ProbeDepth[] = PROBE_DEPTHS.slice()): Promise<ProbeResult[]> {
    const runs = this.targets().flatMap((target) => depths.filter((d) => this.plan.settings(target, d)).map((depth) => this.run(target, depth)));
    return (await Promise.all(runs)).filter((r): r is ProbeResult => r !== undefined);
  }

  /** One probe of one deployment, now, without reporting it (the CLI's `check`). */
  probeOnce(target: Candidate, depth: ProbeDepth): Promise<ProbeResult | undefined> {
    return this.run(target, depth, false);
  }

  /** Fixed rate: a slow probe does not stretch the interval, and a probe still running is not doubled. */
  private schedule(target: Candidate, depth: ProbeDepth, delayMs: number): void {
    if (this.stopped) return;
    const handle = this.pipeline.clock.setTimeout(() => {
      this.timers.delete(handle);
      const { intervalMs, jitterMs } = this.plan.settings(target, depth)!;
      this.schedule(target, depth, intervalMs + this.pipeline.random() * (jitterMs ?? intervalMs / 10));
      const key = `${target.deploymentId} ${depth}`;
      if (this.running.has(key)) return;
      this.running.add(key);
      void this.run(target, depth).finally(() => this.running.delete(key));
    }, delayMs);
    // Probes must never hold a process open on their own.
    (handle as { unref?: () => void }).unref?.();
    this.timers.add(handle);
  }

  private async run(target: Candidate, depth: ProbeDepth, report = true): Promise<ProbeResult | undefined> {
    const provider = this.pipeline.providers.get(target.provider);
    const settings = this.plan.settings(target, depth);
    if (!provider || !settings || this.stopped) return undefined;
    let result: ProbeResult | undefined;
    if (depth === 'quality') result = await this.runQuality(provider, target, settings as DepthSettings['quality']);
    else {
      const built = depth === 'reachability' ? this.reachabilityRequest(provider, target, settings as DepthSettings['reachability']) : this.completionRequest(provider, target, settings as DepthSettings['completion']);
      if (!built) return undefined;
      const sent = await this.exchange(provider, target, depth, built, settings);
      if ('failed' in sent) result = sent.failed;
      else {
        const judged = this.judgeStatus(provider, target, depth, sent.http);
        result = { deployment: target.deploymentId, depth, latencyMs: sent.latencyMs, ...(judged ?? (depth === 'completion' ? this.completionVerdict(provider, target, sent.http) : { ok: true })) };
      }
    }
    if (result && !this.stopped && report) this.onResult(result);
    return result;
  }

  /** The cases one after another (never a burst); the first endpoint failure ends the run. */
  private async runQuality(provider: ProviderV1, target: Candidate, settings: DepthSettings['quality']): Promise<ProbeResult> {
    const cases: QualityCase[] = settings.cases ?? [{ prompt: settings.prompt!, expect: settings.expect! }];
    const run: QualityRun = { cases: [], tokens: 0 };
    let latencyMs = 0;
    for (const [index, testCase] of cases.entries()) {
      const name = testCase.name ?? `case ${index + 1}`;
      const sent = await this.exchange(provider, target, 'quality', this.chatRequest(provider, target, { prompt: testCase.prompt, maxTokens: testCase.maxTokens ?? settings.maxTokens }), settings);
      if ('failed' in sent) return { ...sent.failed, latencyMs: latencyMs + sent.failed.latencyMs };
      latencyMs += sent.latencyMs;
      const status = this.judgeStatus(provider, target, 'quality', sent.http);
      if (status) return { deployment: target.deploymentId, depth: 'quality', latencyMs, ...status };
      const { verdict, response } = this.parsed(provider, target, sent.http);
      if (!response) return { deployment: target.deploymentId, depth: 'quality', latencyMs, ...verdict };
      const answer = response.choices?.[0]?.message?.content ?? '';
      const reason = checkAnswer(answer, testCase.expect);
      run.model = response.model || run.model;
      run.tokens += response.usage?.total_tokens ?? 0;
      run.cases.push({ name, ok: reason === undefined, ...(reason ? { reason } : {}), answer, latencyMs: sent.latencyMs });
    }
    const failed = run.cases.filter((c) => !c.ok);
    if (failed.length === 0) return { deployment: target.deploymentId, depth: 'quality', ok: true, latencyMs, quality: run };
    const message = `quality probe answers did not match: ${failed.map((c) => `${c.name} ${c.reason} (${JSON.stringify(c.answer.slice(0, 80))})`).join('; ')}`;
    return { deployment: target.deploymentId, depth: 'quality', ok: false, failure: 'endpoint', latencyMs, error: new SwitchyardError('server', message), quality: run };
  }

  private reachabilityRequest(provider: ProviderV1, target: Candidate, { path }: DepthSettings['reachability']): ProviderRequest | undefined {
    const built = provider.probe?.(target);
    if (!path) return built;
    return { method: 'GET', path, headers: built?.headers ?? {} };
  }

  /** An embeddings deployment answers an embeddings call: a chat completion would get "not a chat model". */
  private static embeds(provider: ProviderV1, target: Candidate): boolean {
    return target.capabilities.has('embeddings') && provider.buildEmbeddingsRequest !== undefined && provider.parseEmbeddingsResponse !== undefined;
  }

  private completionRequest(provider: ProviderV1, target: Candidate, probe: { prompt: string; maxTokens: number }): ProviderRequest {
    if (Prober.embeds(provider, target)) return provider.buildEmbeddingsRequest!({ model: target.model, input: probe.prompt }, target);
    return this.chatRequest(provider, target, probe);
  }

  private completionVerdict(provider: ProviderV1, target: Candidate, http: ProviderHttpResponse): Pick<ProbeResult, 'ok' | 'failure' | 'error'> {
    if (!Prober.embeds(provider, target)) return this.parsed(provider, target, http).verdict;
    try {
      const answer = provider.parseEmbeddingsResponse!(http, target);
      if (answer.data.length > 0) return { ok: true };
      return { ok: false, failure: 'endpoint', error: new SwitchyardError('server', 'embeddings probe answered no vector') };
    } catch (cause) {
      return { ok: false, failure: 'endpoint', error: new SwitchyardError('server', 'probe answer could not be parsed', { cause }) };
    }
  }

  private chatRequest(provider: ProviderV1, target: Candidate, probe: { prompt: string; maxTokens: number }): ProviderRequest {
    // temperature 0: the same prompt should get the same answer, so drift means something.
    const request: ChatRequest = { model: target.model, messages: [{ role: 'user', content: probe.prompt }], max_tokens: probe.maxTokens, temperature: 0 };
    return provider.buildRequest(request, target, { stream: false });
  }

  /** Sends one probe request on the pipeline clock's time limits; a failure comes back as the probe's result. */
  private async exchange(provider: ProviderV1, target: Candidate, depth: ProbeDepth, built: ProviderRequest, settings: { timeoutMs: number; maxLatencyMs?: number }): Promise<Exchange | { failed: ProbeResult }> {
    const { clock } = this.pipeline;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const { timeoutMs, maxLatencyMs } = settings;
    const timer = clock.setTimeout(() => controller.abort(new SwitchyardError('timeout', `${depth} probe of ${target.deploymentId} took longer than ${timeoutMs} ms`)), timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    const startedAt = clock.now();
    const failed = (error: SwitchyardError, failure: 'endpoint' | 'probe') => ({ failed: { deployment: target.deploymentId, depth, ok: false, latencyMs: clock.now() - startedAt, failure, error } });
    try {
      const http = await this.send(provider, target, built, controller.signal);
      const latencyMs = clock.now() - startedAt;
      if (maxLatencyMs !== undefined && latencyMs > maxLatencyMs) return failed(new SwitchyardError('timeout', `${depth} probe of ${target.deploymentId} answered in ${Math.round(latencyMs)} ms, over its ${maxLatencyMs} ms limit`), 'endpoint');
      return { http, latencyMs };
    } catch (caught) {
      const error = controller.signal.aborted && isSwitchyardError(controller.signal.reason) ? controller.signal.reason : toSwitchyardError(caught);
      return failed(error, error.kind === 'cancelled' ? 'probe' : 'endpoint');
    } finally {
      clock.clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  private async send(provider: ProviderV1, target: Candidate, built: ProviderRequest, signal: AbortSignal): Promise<ProviderHttpResponse> {
    const res = await this.pipeline.transport.request({ ...(await toWireRequest(provider, target, built, signal)), signal });
    const text = await readBodyText(res.body);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** A verdict for a non-2xx answer; undefined for a 2xx. */
  private judgeStatus(provider: ProviderV1, target: Candidate, depth: ProbeDepth, http: ProviderHttpResponse): Pick<ProbeResult, 'ok' | 'failure' | 'error'> | undefined {
    if (http.status < 300) return undefined;
    let error: SwitchyardError;
    try {
      error = provider.classifyError(http, target);
    } catch (cause) {
      error = new SwitchyardError('server', `${depth} probe got ${http.status}`, { status: http.status, cause });
    }
    error = applyErrorRules(target.endpoint.errors, http, error);
    // A probe the vendor rejects as a bad request says nothing about the deployment's health.
    return { ok: false, failure: outcomeOf(error) === 'request-failure' ? 'probe' : 'endpoint', error };
  }

  private parsed(provider: ProviderV1, target: Candidate, http: ProviderHttpResponse): { verdict: Pick<ProbeResult, 'ok' | 'failure' | 'error'>; response?: ChatResponse } {
    try {
      return { verdict: { ok: true }, response: provider.parseResponse(http, target) };
    } catch (cause) {
      return { verdict: { ok: false, failure: 'endpoint', error: new SwitchyardError('server', 'probe answer could not be parsed', { cause }) } };
    }
  }
}
