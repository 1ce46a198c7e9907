/**
 * Runs the failoverbench scenarios through a real gateway (loopback sockets, the official
 * OpenAI SDK as the caller) with the first-party policy plugins at their default options. The
 * gateway, the pipeline and the wall share one virtual clock that advances in small steps
 * while real I/O runs, so the full profile's minutes of outage pass in seconds.
 */
import OpenAI from 'openai';
import { createPipeline, runWithVirtualTime, seededRandom, sleep, VirtualClock, type DeploymentConfig, type Plugin } from '@switchyard/core';
import { openaiCompatibleProvider } from '@switchyard/provider-openai';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { health } from '@switchyard/plugin-health';
import { retry } from '@switchyard/plugin-retry';
import { router } from '@switchyard/plugin-router';
import { createGateway } from '../../src/index.js';
import { CANONICAL_ANSWER, PROFILES, startWall, type Wall, type WallEntry } from './wall.js';
import { SCENARIOS, scoreChecks, verdictFor, type Metrics, type Scenario, type ScoredCheck, type Verdict } from './scenarios.js';

export type ProfileName = keyof typeof PROFILES;

export interface ScenarioResult {
  id: string;
  title: string;
  verdict: Verdict;
  reason: string;
  checks: ScoredCheck[];
  metrics: Metrics;
  wall: string[];
}

const PROMPT = 'Explain in exactly sixty words why a gateway earns trust only when the vendor behind it misbehaves.';
const GATEWAY_KEY = 'gw-failoverbench';
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const CANON = norm(CANONICAL_ANSWER);

interface CallResult {
  outcome: 'success' | 'error' | 'hang';
  content: string;
  reportedModel?: string;
  usage?: unknown;
  error?: string;
  elapsedS: number;
}

/** The default plugins a `switchyard.yaml` user gets by listing them without options. */
export const DEFAULT_PLUGINS = (): Plugin[] => [retry(), circuitBreaker(), health(), router()];

function modelsFor(scenarios: Scenario[]): Record<string, DeploymentConfig[]> {
  const models: Record<string, DeploymentConfig[]> = { ok: [{ endpoint: 'backup', model: 'fb-ok' }] };
  for (const s of scenarios) {
    models[s.id.toLowerCase()] = [
      { endpoint: 'primary', model: s.model, contextWindow: 8_192 },
      // The healthy fallback accepts an assistant prefill and says so; the S14 one does not.
      { endpoint: 'backup', model: s.fallback, contextWindow: 128_000, ...(s.fallback === 'fb-ok' ? { capabilities: ['prefill'] } : {}) },
    ];
  }
  return models;
}

export async function runProfile(profile: ProfileName, scenarios: Scenario[] = SCENARIOS, plugins: () => Plugin[] = DEFAULT_PLUGINS): Promise<ScenarioResult[]> {
  const clock = new VirtualClock();
  const wall = await startWall(clock, PROFILES[profile]);
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai-compatible', baseUrl: wall.url, apiKey: 'sk-wall-primary-0001' },
      { name: 'backup', provider: 'openai-compatible', baseUrl: wall.url, apiKey: 'sk-wall-backup-0002' },
    ],
    models: modelsFor(scenarios),
    providers: [openaiCompatibleProvider],
    plugins: plugins(),
    clock,
    random: seededRandom(13),
  });
  const gateway = createGateway({ pipeline, clock, server: { host: '127.0.0.1', port: 0, apiKeys: [GATEWAY_KEY] } });
  const { url } = await gateway.listen();
  const client = new OpenAI({ baseURL: url, apiKey: GATEWAY_KEY, maxRetries: 0 });

  const call = async (model: string, maxWallS: number): Promise<CallResult> => {
    const startedAt = clock.now();
    const elapsedS = () => (clock.now() - startedAt) / 1000;
    const controller = new AbortController();
    const guard = new AbortController();
    const hang = sleep(clock, maxWallS * 1000, guard.signal).then(
      () => 'hang' as const,
      () => undefined,
    );
    let content = '';
    let reportedModel: string | undefined;
    let usage: unknown;
    const work = (async (): Promise<CallResult> => {
      try {
        const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true } }, { signal: controller.signal });
        for await (const chunk of stream) {
          content += chunk.choices[0]?.delta?.content ?? '';
          reportedModel = chunk.model || reportedModel;
          if (chunk.usage) usage = chunk.usage;
        }
        return { outcome: 'success', content, reportedModel, usage, elapsedS: elapsedS() };
      } catch (error) {
        return { outcome: 'error', content, reportedModel, usage, error: (error as Error).message, elapsedS: elapsedS() };
      }
    })();
    const first = await Promise.race([work, hang]);
    guard.abort();
    if (first === 'hang' || first === undefined) {
      controller.abort();
      await work;
      return { outcome: 'hang', content, error: `no result within ${maxWallS} s`, elapsedS: maxWallS };
    }
    return first;
  };

  const metricsOf = (s: Scenario, r: CallResult, log: WallEntry[], aliveAfter: boolean): Metrics => {
    const primary = log.filter((e) => e.model === s.model);
    const fallback = log.filter((e) => e.model === s.fallback);
    return {
      outcome: r.outcome,
      complete: norm(r.content) === CANON,
      contentWords: norm(r.content).split(' ').filter(Boolean).length,
      error: r.error,
      elapsedS: r.elapsedS,
      reportedModel: r.reportedModel,
      usage: r.usage,
      attemptsPrimary: primary.length,
      attemptsFallback: fallback.length,
      primaryTimes: primary.map((e) => e.t),
      firstGapS: primary.length >= 2 ? primary[1].t - primary[0].t : undefined,
      prefillRejections: log.filter((e) => e.action.startsWith('400 prefill')).length,
      aliveAfter,
    };
  };

  const runScenario = async (s: Scenario): Promise<ScenarioResult> => {
    wall.reset();
    let m: Metrics;
    let log: WallEntry[];
    if (s.sequence) {
      const seq = s.sequence[profile];
      const t0 = clock.now();
      const items: (CallResult & { sentS: number })[] = [];
      for (let i = 0; i < seq.count; i++) {
        const wait = t0 + i * seq.intervalS * 1000 - clock.now();
        if (wait > 0) await sleep(clock, wait);
        const sentS = (clock.now() - t0) / 1000;
        items.push({ ...(await call(s.id.toLowerCase(), seq.perRequestMaxWallS)), sentS });
      }
      log = [...wall.log];
      const down = wall.timing.flapDownS;
      const primary = log.filter((e) => e.model === s.model);
      const recovered = primary.filter((e) => e.action.startsWith('200')).map((e) => e.t);
      const during = items.filter((it) => it.sentS < down);
      const last = items.at(-1)!;
      const alive = await call('ok', 10);
      m = metricsOf(s, last, log, alive.outcome === 'success' && norm(alive.content) === CANON);
      m.outcome = items.some((it) => it.outcome === 'hang') ? 'hang' : items.every((it) => it.outcome === 'success') ? 'success' : 'error';
      m.complete = items.every((it) => norm(it.content) === CANON);
      m.error = items.find((it) => it.outcome !== 'success')?.error;
      m.elapsedS = (clock.now() - t0) / 1000;
      m.sequence = {
        hangs: items.filter((it) => it.outcome === 'hang').length,
        requestsDuringDown: during.length,
        servedDuringDown: during.filter((it) => it.outcome === 'success').length,
        primaryAttemptsDuringDown: primary.filter((e) => e.t < down).length,
        recoveredAfterS: recovered.length ? Math.min(...recovered) - down : undefined,
      };
    } else {
      const r = await call(s.id.toLowerCase(), s.maxWallS);
      log = [...wall.log];
      const alive = await call('ok', 10);
      m = metricsOf(s, r, log, alive.outcome === 'success' && norm(alive.content) === CANON);
    }
    const checks = scoreChecks(s, m);
    return { id: s.id, title: s.title, ...verdictFor(s, checks, m), checks, metrics: m, wall: log.map((e) => `${e.t.toFixed(2)}s ${e.model} #${e.attempt} -> ${e.action}`) };
  };

  try {
    return await runWithVirtualTime(
      clock,
      (async () => {
        const results: ScenarioResult[] = [];
        for (const s of scenarios) results.push(await runScenario(s));
        return results;
      })(),
      { stepMs: 25, maxMs: 3_600_000 },
    );
  } finally {
    await gateway.close();
    await wall.close();
  }
}

const MARK: Record<Verdict, string> = { pass: '✅ pass', partial: '◐ partial', safe: '○ safe', fail: '❌ fail' };

/** A scorecard row per scenario, like failoverbench's SCORECARD.md. */
export function scorecard(profile: ProfileName, results: ScenarioResult[]): string {
  const detail = (r: ScenarioResult) => {
    const m = r.metrics;
    if (m.sequence) return `${m.sequence.servedDuringDown}/${m.sequence.requestsDuringDown} served in outage · back on primary ${m.sequence.recoveredAfterS === undefined ? 'never' : `+${m.sequence.recoveredAfterS.toFixed(0)}s`}`;
    return `${m.attemptsPrimary}p/${m.attemptsFallback}f${m.firstGapS !== undefined ? ` · gap ${m.firstGapS.toFixed(1)}s` : ''} · ${m.elapsedS.toFixed(1)}s`;
  };
  const counts = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  return [
    `Profile **${profile}**: ${counts('pass')} pass, ${counts('partial')} partial, ${counts('safe')} safe, ${counts('fail')} fail`,
    '',
    '| Scenario | Verdict | Detail |',
    '|---|---|---|',
    ...results.map((r) => `| **${r.id}** ${r.title} | ${MARK[r.verdict]} | ${detail(r)}${r.verdict === 'pass' ? '' : ` · ${r.reason}`} |`),
  ].join('\n');
}
