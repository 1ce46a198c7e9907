/**
 * Quality over time: the first quality run whose every answer passed becomes the deployment's
 * baseline (kept in the StateStore, so a reload or another gateway on the same Redis compares
 * against the same one). Later runs are compared with it to catch a model that was silently
 * swapped or degraded: another `model` answering, answers that drift from the baseline's,
 * a run much slower or faster, answers much longer or shorter. A change of verdict emits
 * `quality:change`; failed checks also count against health (probes.ts), drift does not.
 * The latency baseline is the median of the first passing runs: the very first one is often
 * cold (new connections, a vendor warming up), and compared alone it made every later, warm
 * run look like a latency shift.
 */
import { type QualityDrift } from '@switchyard/contracts';
import { createHash } from 'node:crypto';
import { storeLocal, type Pipeline } from '@switchyard/core';
import { distance } from 'fastest-levenshtein';
import type { DepthSettings } from './options.js';
import type { ProbeResult, QualityRun } from './probes.js';

const KEY = 'switchyard:health:quality-baseline:';

interface Baseline {
  /** The test set it answers (a changed test set starts a new baseline). */
  fingerprint: string;
  at: number;
  model?: string;
  answers: string[];
  /** The median of `latencySamples` once it holds LATENCY_SAMPLES runs; until then not compared. */
  latencyMs: number;
  /** The passing runs' times so far while the latency baseline warms up (absent: warm). */
  latencySamples?: number[];
  chars: number;
}

/** Passing runs whose median is the latency baseline. */
export const LATENCY_SAMPLES = 3;

const warmingUp = (baseline: Baseline) => baseline.latencySamples !== undefined && baseline.latencySamples.length < LATENCY_SAMPLES;

/** The baseline with one more run's time while it warms up: the median once there are enough. */
function withLatencySample(baseline: Baseline, latencyMs: number): Baseline {
  const samples = [...(baseline.latencySamples ?? []), latencyMs];
  const sorted = [...samples].sort((a, b) => a - b);
  return { ...baseline, latencySamples: samples, latencyMs: sorted[Math.floor(sorted.length / 2)] };
}

export interface QualityVerdict {
  ok: boolean;
  at: number;
  /** Cases whose answer failed its check. */
  failed: string[];
  drift: QualityDrift[];
  /** When the baseline compared against was taken; unset until a run passed. */
  baselineAt?: number;
  /** Tokens the last run spent. */
  tokens: number;
}

/** 1 − edit distance / length of the longer, on trimmed, case-folded, whitespace-collapsed text. */
export function similarity(a: string, b: string): number {
  const x = a.trim().toLowerCase().replace(/\s+/g, ' ');
  const y = b.trim().toLowerCase().replace(/\s+/g, ' ');
  const longer = Math.max(x.length, y.length);
  return longer === 0 ? 1 : 1 - distance(x, y) / longer;
}

function fingerprintOf(settings: DepthSettings['quality']): string {
  const cases = settings.cases ?? [{ prompt: settings.prompt, expect: settings.expect }];
  return createHash('sha256').update(JSON.stringify([cases, settings.maxTokens])).digest('hex').slice(0, 16);
}

function ratioOutside(observed: number, baseline: number, factor: number): boolean {
  const ratio = Math.max(1, observed) / Math.max(1, baseline);
  return ratio > factor || ratio < 1 / factor;
}

export function driftFrom(baseline: Baseline, run: QualityRun, latencyMs: number, settings: Exclude<DepthSettings['quality']['baseline'], false>): QualityDrift[] {
  const drift: QualityDrift[] = [];
  if (settings.model && baseline.model && run.model && run.model !== baseline.model) {
    drift.push({ signal: 'model-changed', baseline: baseline.model, observed: run.model, message: `the answering model changed from ${baseline.model} to ${run.model}` });
  }
  if (settings.minSimilarity !== false && run.cases.length === baseline.answers.length) {
    const mean = run.cases.reduce((sum, c, i) => sum + similarity(c.answer, baseline.answers[i]), 0) / run.cases.length;
    if (mean < settings.minSimilarity) drift.push({ signal: 'answer-drift', baseline: 1, observed: round(mean), message: `answers are ${Math.round(mean * 100)} % similar to the baseline's (at least ${Math.round(settings.minSimilarity * 100)} % expected)` });
  }
  if (settings.latencyFactor !== false && !warmingUp(baseline) && ratioOutside(latencyMs, baseline.latencyMs, settings.latencyFactor)) {
    drift.push({ signal: 'latency-shift', baseline: Math.round(baseline.latencyMs), observed: Math.round(latencyMs), message: `the test set took ${Math.round(latencyMs)} ms, the baseline ${Math.round(baseline.latencyMs)} ms` });
  }
  const chars = run.cases.reduce((n, c) => n + c.answer.length, 0);
  if (settings.lengthFactor !== false && ratioOutside(chars, baseline.chars, settings.lengthFactor)) {
    drift.push({ signal: 'length-shift', baseline: baseline.chars, observed: chars, message: `the answers are ${chars} characters long, the baseline's ${baseline.chars}` });
  }
  return drift;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export class QualityWatch {
  private readonly verdicts: Map<string, QualityVerdict>;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly settingsOf: (deploymentId: string) => DepthSettings['quality'] | undefined,
  ) {
    this.verdicts = storeLocal(pipeline.store, 'switchyard.health.quality', () => new Map<string, QualityVerdict>());
  }

  verdict(deploymentId: string): QualityVerdict | undefined {
    return this.verdicts.get(deploymentId);
  }

  /** Judges a result in the background; `settled()` waits for it. */
  track(result: ProbeResult, onError: (error: unknown) => void): void {
    const work = this.observe(result).catch(onError);
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  async settled(): Promise<void> {
    await Promise.all(this.pending);
  }

  /** A quality probe's result: only runs that got every answer say anything about quality. */
  async observe(result: ProbeResult): Promise<void> {
    const run = result.quality;
    const settings = this.settingsOf(result.deployment);
    if (!run || !settings) return;
    const { store, clock } = this.pipeline;
    const failed = run.cases.filter((c) => !c.ok).map((c) => c.name);
    const fingerprint = fingerprintOf(settings);
    let baseline = await store.get<Baseline>(KEY + result.deployment);
    if (baseline?.fingerprint !== fingerprint) baseline = undefined;
    let drift: QualityDrift[] = [];
    if (baseline && settings.baseline !== false) {
      drift = driftFrom(baseline, run, result.latencyMs, settings.baseline);
      if (warmingUp(baseline) && failed.length === 0 && drift.length === 0) {
        baseline = withLatencySample(baseline, result.latencyMs);
        await store.set(KEY + result.deployment, baseline);
      }
    } else if (!baseline && failed.length === 0) {
      baseline = withLatencySample({ fingerprint, at: clock.now(), model: run.model, answers: run.cases.map((c) => c.answer), latencyMs: result.latencyMs, latencySamples: [], chars: run.cases.reduce((n, c) => n + c.answer.length, 0) }, result.latencyMs);
      await store.set(KEY + result.deployment, baseline);
    }
    const ok = failed.length === 0 && drift.length === 0;
    const before = this.verdicts.get(result.deployment);
    this.verdicts.set(result.deployment, { ok, at: clock.now(), failed, drift, ...(baseline ? { baselineAt: baseline.at } : {}), tokens: run.tokens });
    if ((before?.ok ?? true) !== ok) this.pipeline.events.emit('quality:change', { deployment: result.deployment, ok, failed, drift });
  }

  /** Forgets the baselines (of one deployment, or all): the next passing run sets a new one. */
  async resetBaseline(deploymentId?: string): Promise<void> {
    const ids = deploymentId ? [deploymentId] : [...new Set(this.pipeline.modelNames().flatMap((m) => this.pipeline.candidatesFor(m).map((c) => c.deploymentId)))];
    await Promise.all(ids.map((id) => this.pipeline.store.delete(KEY + id)));
  }
}
