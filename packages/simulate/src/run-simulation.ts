/**
 * runSimulation(): the real pipeline (the caller's providers and policy plugins) on a
 * discrete-event clock, fed by the scenario's traffic and answered by the simulated transport,
 * so weeks of traffic run in seconds. Requests overlap whenever their virtual times do.
 */
import { createPipeline, isSwitchyardError, MemoryStateStore, seededRandom, type ChatRequest, type ChatResponse, type Plugin, type ProviderV1 } from '@switchyard/core';
import { healthyText } from './faults/healthy-text.js';
import { buildSimulatedEndpoints, endpointUpAt, simulatedKeys } from './fault-rules.js';
import { ReportCollector, type RequestResult, type SimulationReport } from './report.js';
import { validateScenario, type Scenario } from './scenario.js';
import { SimulationClock } from './simulation-clock.js';
import { createSimulatedTransport } from './simulated-transport.js';

export interface SimulationProgress {
  /** Simulated time so far and in total (ms). */
  simulatedMs: number;
  durationMs: number;
  /** 0..1 of simulated time. */
  fraction: number;
  requests: number;
  succeeded: number;
  inFlight: number;
  wallMs: number;
}

export interface RunSimulationOptions {
  /** Policy plugins (and providers) applied to the pipeline, in order: the simulation imports none itself. */
  plugins?: (Plugin | ProviderV1)[];
  /** Provider codecs for the scenario's provider ids. */
  providers?: ProviderV1[];
  /** Called about `progressSteps` times over the run, and once at the end (fraction 1). */
  onProgress?: (progress: SimulationProgress) => void;
  progressSteps?: number;
  /** Stops the run early; the report covers what finished (`run.aborted`). */
  signal?: AbortSignal;
  /** Virtual epoch of the scenario's t = 0 (default 2025-01-01T00:00:00Z). */
  startAt?: number;
  /** How long, past the scenario's end, requests still running may take to finish (default: deadline + 5 min). */
  drainMs?: number;
}

const PROMPT = 'Tell me something about quick brown foxes.';

/** Accepts a validated Scenario or a parsed scenario document. */
function scenarioOf(input: Scenario | unknown): Scenario {
  const s = input as Scenario;
  if (s && typeof s === 'object' && typeof s.durationMs === 'number' && typeof s.traffic?.intervalMs === 'number' && Array.isArray(s.endpoints)) return s;
  return validateScenario(input);
}

export async function runSimulation(input: Scenario | unknown, options: RunSimulationOptions = {}): Promise<SimulationReport> {
  const scenario = scenarioOf(input);
  const wallStart = performance.now();
  const startAt = options.startAt ?? Date.UTC(2025, 0, 1);
  const endAt = startAt + scenario.durationMs;
  const clock = new SimulationClock(startAt);
  const collector = new ReportCollector({
    name: scenario.name,
    seed: scenario.seed,
    durationMs: scenario.durationMs,
    bucketMs: scenario.bucketMs,
    intervalMs: scenario.traffic.intervalMs,
    streamShare: scenario.traffic.streamShare,
    endpoints: scenario.endpoints.map((e) => e.name),
  });
  const transport = createSimulatedTransport({
    clock,
    endpoints: buildSimulatedEndpoints(scenario, clock, startAt),
    onCall: (call) => collector.addUpstreamCall(call.endpoint, call.fault),
  });
  const pipeline = createPipeline({
    endpoints: scenario.endpoints.map((e) => {
      const keys = simulatedKeys(e);
      return { name: e.name, provider: e.provider, baseUrl: e.baseUrl, ...(keys.length > 1 ? { apiKeys: keys } : { apiKey: keys[0] }), ...(e.options ? { options: e.options } : {}) };
    }),
    models: scenario.models,
    plugins: options.plugins,
    providers: options.providers,
    clock,
    random: seededRandom(scenario.seed),
    store: new MemoryStateStore(clock),
    transport,
    ...(scenario.traffic.deadlineMs !== undefined ? { deadlineMs: scenario.traffic.deadlineMs } : {}),
  });
  await pipeline.ready;

  const attemptsOf = new Map<string, number>();
  pipeline.events.on('attempt:start', ({ requestId }) => attemptsOf.set(requestId, (attemptsOf.get(requestId) ?? 0) + 1));
  pipeline.events.on('attempt:end', (outcome) => {
    if (outcome.error) collector.addAttemptFailure(outcome.error.kind);
  });
  pipeline.events.on('failover', () => collector.failovers++);
  pipeline.events.on('retry', () => collector.retries++);
  pipeline.events.on('health:change', () => collector.healthChanges++);
  pipeline.events.on('breaker:open', ({ deployment, until, reason }) => collector.addBreakerTrip({ atMs: clock.now() - startAt, deployment, openForMs: Math.max(0, until - clock.now()), reason }));
  pipeline.events.on('breaker:close', () => collector.breakerCloses++);

  // Which endpoints can serve each logical model, for the "at least one up" figure.
  const endpointsOfModel = new Map(Object.entries(scenario.models).map(([m, ds]) => [m, [...new Set(ds.map((d) => d.endpoint))]]));
  const endpointByName = new Map(scenario.endpoints.map((e) => [e.name, e]));
  const trafficRandom = seededRandom((scenario.seed ^ 0x5bd1e995) >>> 0);
  let inFlight = 0;
  let sequence = 0;

  function pickModel(): string {
    let r = trafficRandom();
    for (const { model, share } of scenario.traffic.models) {
      if (r < share) return model;
      r -= share;
    }
    return scenario.traffic.models[scenario.traffic.models.length - 1]!.model;
  }

  async function send(): Promise<void> {
    const arrivedAt = clock.now();
    const t = arrivedAt - startAt;
    const model = pickModel();
    const stream = trafficRandom() < scenario.traffic.streamShare;
    const down = scenario.endpoints.filter((e) => !endpointUpAt(e, t)).map((e) => e.name);
    collector.noteArrival(t, down);
    const anyUp = endpointsOfModel.get(model)!.some((name) => !down.includes(name));
    const requestId = `sim-${++sequence}`;
    const request: ChatRequest = { model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 };
    inFlight++;
    let result: RequestResult;
    // What every result says, success or failure, taken when the request settles.
    const settled = () => ({ arrivedAtMs: t, anyUp, latencyMs: clock.now() - arrivedAt, attempts: attemptsOf.get(requestId) ?? 0 });
    try {
      const response: ChatResponse = stream ? await (await pipeline.stream(request, { requestId })).collect() : await pipeline.chat(request, { requestId });
      const info = response.switchyard;
      const expected = info?.endpoint ? endpointByName.get(info.endpoint) : undefined;
      const content = response.choices[0]?.message.content;
      result = {
        ...settled(),
        ok: true,
        endpoint: info?.endpoint,
        degraded: info?.degraded,
        // Only answers from a scenario endpoint have a known text; degraded ones are judged by their level.
        complete: expected && !info?.degraded ? content === healthyText(expected.tokens) && response.choices[0]?.finish_reason !== null : undefined,
      };
    } catch (error) {
      result = {
        ...settled(),
        ok: false,
        errorKind: isSwitchyardError(error) ? error.kind : 'unexpected',
        errorMessage: error instanceof Error ? error.message : String(error),
      };
    } finally {
      inFlight--;
      attemptsOf.delete(requestId);
    }
    collector.addRequest(result);
  }

  function scheduleArrival(afterMs: number): void {
    if (clock.now() + afterMs >= endAt) return;
    clock.setTimeout(() => {
      void send();
      const { intervalMs, jitter } = scenario.traffic;
      scheduleArrival(intervalMs * (1 + jitter * (2 * trafficRandom() - 1)));
    }, afterMs);
  }

  const steps = Math.max(1, options.progressSteps ?? 200);
  const stepMs = scenario.durationMs / steps;
  let nextProgressAt = startAt + stepMs;
  const progress = (): SimulationProgress => {
    const simulatedMs = Math.min(scenario.durationMs, clock.now() - startAt);
    return { simulatedMs, durationMs: scenario.durationMs, fraction: simulatedMs / scenario.durationMs, ...collector.counts, inFlight, wallMs: performance.now() - wallStart };
  };
  const afterEach = () => {
    if (options.onProgress && clock.now() >= nextProgressAt) {
      options.onProgress(progress());
      nextProgressAt = Math.min(endAt, startAt + Math.floor((clock.now() - startAt) / stepMs + 1) * stepMs);
    }
    return options.signal?.aborted === true;
  };

  scheduleArrival(0);
  let aborted = !(await clock.runUntil(endAt, { afterEach }));
  // Let requests still in flight finish (their deadlines bound this), without new arrivals.
  const drainUntil = endAt + (options.drainMs ?? (scenario.traffic.deadlineMs ?? 120_000) + 300_000);
  while (!aborted && inFlight > 0 && (clock.nextAt() ?? Number.POSITIVE_INFINITY) <= drainUntil) {
    await clock.step();
    aborted = options.signal?.aborted === true;
  }
  await pipeline.close();
  const wallMs = performance.now() - wallStart;
  options.onProgress?.({ ...progress(), fraction: aborted ? progress().fraction : 1, wallMs });
  const report = collector.finish({ wallMs, timersFired: clock.fired, requestsPerWallSecond: collector.counts.requests / Math.max(wallMs / 1_000, 1e-9), aborted }, inFlight);
  return report;
}
