/**
 * Active probes at three depths, each on its own jittered timer on the pipeline clock:
 * `reachability` (the provider's cheap `probe()` request), `completion` (a real tiny chat
 * through the provider codec) and `quality` (a fixed prompt whose answer is checked).
 */
import { applyErrorRules, isSwitchyardError, joinUrl, outcomeOf, readBodyText, SwitchyardError, toSwitchyardError, type Candidate, type ChatRequest, type Pipeline, type ProviderHttpResponse, type ProviderRequest, type ProviderV1, type TimerHandle } from '@switchyard/core';
import type { HealthOptions, ProbeDepth } from './options.js';
import { PROBE_DEPTHS } from './options.js';

export interface ProbeResult {
  deployment: string;
  depth: ProbeDepth;
  ok: boolean;
  latencyMs: number;
  /** `endpoint` failures count against health; `probe` ones mean the probe itself is wrong (e.g. a 400). */
  failure?: 'endpoint' | 'probe';
  error?: SwitchyardError;
}

type Probes = HealthOptions['probes'];

export class Prober {
  private readonly timers = new Set<TimerHandle>();
  private readonly inFlight = new Set<AbortController>();
  private readonly running = new Set<string>();
  private stopped = false;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly probes: Probes,
    private readonly onResult: (result: ProbeResult) => void,
  ) {}

  get configured(): ProbeDepth[] {
    return PROBE_DEPTHS.filter((depth) => this.probes[depth] !== undefined);
  }

  /** One candidate per deployment (its first key), across every logical model. */
  targets(): Candidate[] {
    const seen = new Map<string, Candidate>();
    for (const model of this.pipeline.modelNames()) for (const c of this.pipeline.candidatesFor(model)) if (!seen.has(c.deploymentId)) seen.set(c.deploymentId, c);
    return [...seen.values()];
  }

  /** Starts every configured probe, each at a random offset inside its first interval. */
  start(): void {
    for (const depth of this.configured) {
      const interval = this.probes[depth]!.intervalMs;
      for (const target of this.targets()) this.schedule(target, depth, this.pipeline.random() * interval);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const handle of this.timers) this.pipeline.clock.clearTimeout(handle);
    this.timers.clear();
    for (const controller of this.inFlight) controller.abort(new SwitchyardError('cancelled', 'health probes stopped'));
  }

  /** Runs the configured probes (or the given depths) of every deployment once, now. */
  async runAll(depths: ProbeDepth[] = this.configured): Promise<ProbeResult[]> {
    const runs = this.targets().flatMap((target) => depths.filter((d) => this.probes[d]).map((depth) => this.run(target, depth)));
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
      const { intervalMs, jitterMs } = this.probes[depth]!;
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
    if (!provider || this.stopped) return undefined;
    const built = this.buildRequest(provider, target, depth);
    if (!built) return undefined;
    const { clock } = this.pipeline;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeoutMs = this.probes[depth]!.timeoutMs;
    const timer = clock.setTimeout(() => controller.abort(new SwitchyardError('timeout', `${depth} probe of ${target.deploymentId} took longer than ${timeoutMs} ms`)), timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    const startedAt = clock.now();
    let result: ProbeResult;
    try {
      const http = await this.send(provider, target, built, controller.signal);
      result = { deployment: target.deploymentId, depth, latencyMs: clock.now() - startedAt, ...this.judge(provider, target, depth, http) };
    } catch (caught) {
      const error = controller.signal.aborted && isSwitchyardError(controller.signal.reason) ? controller.signal.reason : toSwitchyardError(caught);
      result = { deployment: target.deploymentId, depth, ok: false, latencyMs: clock.now() - startedAt, failure: error.kind === 'cancelled' ? 'probe' : 'endpoint', error };
    } finally {
      clock.clearTimeout(timer);
      this.inFlight.delete(controller);
    }
    if (!this.stopped && report) this.onResult(result);
    return result;
  }

  private buildRequest(provider: ProviderV1, target: Candidate, depth: ProbeDepth): ProviderRequest | undefined {
    if (depth === 'reachability') return provider.probe?.(target);
    const probe = depth === 'completion' ? this.probes.completion! : this.probes.quality!;
    const request: ChatRequest = { model: target.model, messages: [{ role: 'user', content: probe.prompt }], max_tokens: probe.maxTokens };
    return provider.buildRequest(request, target, { stream: false });
  }

  private async send(provider: ProviderV1, target: Candidate, built: ProviderRequest, signal: AbortSignal): Promise<ProviderHttpResponse> {
    const base = target.endpoint.baseUrl ?? provider.defaultBaseUrl;
    if (!base) throw new SwitchyardError('config', `endpoint ${target.endpoint.name} has no baseUrl`, { code: 'SWITCHYARD_ERR_CONFIG' });
    const res = await this.pipeline.transport.request({ url: joinUrl(base, built.path), method: built.method, headers: { ...target.endpoint.headers, ...built.headers }, body: built.body, signal });
    const text = await readBodyText(res.body);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  private judge(provider: ProviderV1, target: Candidate, depth: ProbeDepth, http: ProviderHttpResponse): Pick<ProbeResult, 'ok' | 'failure' | 'error'> {
    if (http.status >= 300) {
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
    if (depth === 'reachability') return { ok: true };
    let content: string;
    try {
      content = provider.parseResponse(http, target).choices?.[0]?.message?.content ?? '';
    } catch (cause) {
      return { ok: false, failure: 'endpoint', error: new SwitchyardError('server', `${depth} probe answer could not be parsed`, { cause }) };
    }
    if (depth === 'quality' && !answerMatches(content, this.probes.quality!.expect)) {
      return { ok: false, failure: 'endpoint', error: new SwitchyardError('server', `quality probe answer did not match: ${JSON.stringify(content.slice(0, 80))}`) };
    }
    return { ok: true };
  }
}

export function answerMatches(answer: string, expect: string | { pattern: string; flags?: string }): boolean {
  if (typeof expect === 'string') return answer.toLowerCase().includes(expect.toLowerCase());
  return new RegExp(expect.pattern, expect.flags).test(answer);
}
