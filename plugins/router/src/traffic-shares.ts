/**
 * Declared traffic splits (80/15/5) watched against what happens: per logical model, the share
 * of answered requests each deployment served over a sliding window on the pipeline clock. When
 * a share leaves the target by more than the tolerance (with enough requests to judge) the
 * plugin emits `traffic:drift` `{ drifting: true }`, and `{ drifting: false }` once every share
 * is back within it. Failovers, unhealthy primaries and skewed weights all show up this way.
 */
import { SwitchyardError, type Pipeline, type RequestOutcome } from '@switchyard/core';
import type { RouterOptions } from './options.js';

type Target = RouterOptions['trafficTargets'][string];

const BUCKETS = 10;

interface Bucket {
  start: number;
  counts: Map<string, number>;
}

class ModelShares {
  private readonly buckets: Bucket[] = [];
  private readonly bucketMs: number;
  private drifting = false;
  private nextCheckAt = 0;

  constructor(
    readonly model: string,
    readonly target: Target,
  ) {
    this.bucketMs = Math.max(1, target.windowMs / BUCKETS);
  }

  add(deploymentId: string, now: number): void {
    const start = Math.floor(now / this.bucketMs) * this.bucketMs;
    let last = this.buckets[this.buckets.length - 1];
    if (!last || last.start !== start) this.buckets.push((last = { start, counts: new Map() }));
    last.counts.set(deploymentId, (last.counts.get(deploymentId) ?? 0) + 1);
  }

  /** A verdict that changed, or undefined; judged at most once a second of clock time. */
  check(now: number): { drifting: boolean; requests: number; shares: Record<string, { target: number; observed: number }> } | undefined {
    if (now < this.nextCheckAt) return undefined;
    this.nextCheckAt = now + Math.min(1_000, this.bucketMs);
    while (this.buckets.length > 0 && this.buckets[0].start + this.bucketMs <= now - this.target.windowMs) this.buckets.shift();
    const served = new Map<string, number>();
    let requests = 0;
    for (const b of this.buckets) {
      for (const [id, n] of b.counts) {
        served.set(id, (served.get(id) ?? 0) + n);
        requests += n;
      }
    }
    if (requests < this.target.minRequests) return undefined;
    const shares: Record<string, { target: number; observed: number }> = {};
    let drifting = false;
    for (const id of new Set([...Object.keys(this.target.shares), ...served.keys()])) {
      const target = this.target.shares[id] ?? 0;
      const observed = (served.get(id) ?? 0) / requests;
      shares[id] = { target, observed: Math.round(observed * 10_000) / 10_000 };
      if (Math.abs(observed - target) > this.target.tolerance) drifting = true;
    }
    if (drifting === this.drifting) return undefined;
    this.drifting = drifting;
    return { drifting, requests, shares };
  }
}

export class TrafficShares {
  private readonly models = new Map<string, ModelShares>();

  constructor(
    private readonly pipeline: Pipeline,
    targets: RouterOptions['trafficTargets'],
  ) {
    for (const [model, target] of Object.entries(targets)) {
      const deployments = pipeline.models[model];
      const fail = (path: string, message: string) => {
        throw new SwitchyardError('plugin', `${path}: ${message} (@switchyard/plugin-router)`, { code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path });
      };
      if (!deployments) fail(`trafficTargets.${model}`, `"${model}" is not a configured model (known: ${Object.keys(pipeline.models).join(', ')})`);
      const ids = new Set(deployments.map((d) => `${d.endpoint}/${d.model}`));
      for (const id of Object.keys(target.shares)) if (!ids.has(id)) fail(`trafficTargets.${model}.shares.${id}`, `"${id}" is not a deployment of model "${model}" (known: ${[...ids].join(', ')})`);
      this.models.set(model, new ModelShares(model, target));
    }
  }

  get empty(): boolean {
    return this.models.size === 0;
  }

  /** Counts the deployment that answered (the attempt that succeeded), if the model has a target. */
  record(outcome: RequestOutcome): void {
    const shares = this.models.get(outcome.model);
    if (!shares || !outcome.ok) return;
    const served = outcome.attempts.find((a) => a.ok);
    if (!served) return;
    const now = this.pipeline.clock.now();
    shares.add(served.candidate.deploymentId, now);
    const changed = shares.check(now);
    if (changed) this.pipeline.events.emit('traffic:drift', { model: outcome.model, windowMs: shares.target.windowMs, drifting: changed.drifting, requests: changed.requests, shares: changed.shares });
  }
}
