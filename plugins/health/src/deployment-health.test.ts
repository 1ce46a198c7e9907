import { describe, expect, it } from 'vitest';
import { DeploymentHealth, type HealthSettings } from './deployment-health.js';
import { healthOptionsSchema } from './options.js';

const settings: HealthSettings = healthOptionsSchema.parse({});
const T0 = 1_700_000_000_000;

function failTimes(h: DeploymentHealth, n: number, at: number, latencyMs = 50): (boolean | undefined)[] {
  return Array.from({ length: n }, (_, i) => h.record({ kind: 'failure', latencyMs }, at + i));
}

describe('DeploymentHealth: hysteresis', () => {
  it('starts healthy with a full score', () => {
    const h = new DeploymentHealth(settings);
    expect(h.isHealthy()).toBe(true);
    expect(h.score(T0)).toBe(1);
  });

  it('does not flip on one blip, nor on failures below the minimum sample count', () => {
    const h = new DeploymentHealth(settings);
    for (let i = 0; i < 10; i++) h.record({ kind: 'success', latencyMs: 200 }, T0 + i);
    expect(h.record({ kind: 'failure', latencyMs: 200 }, T0 + 20)).toBeUndefined();
    expect(h.isHealthy()).toBe(true);
    const fresh = new DeploymentHealth(settings);
    expect(failTimes(fresh, 4, T0)).toEqual([undefined, undefined, undefined, undefined]);
    expect(fresh.isHealthy()).toBe(true);
    expect(fresh.record({ kind: 'failure' }, T0 + 10)).toBe(false);
  });

  it('becomes healthy again only above the upper threshold', () => {
    // The window alone (the EWMA's share of the error rate is tested in decayed-rate.test.ts).
    const h = new DeploymentHealth({ ...settings, latencyWeight: 0, errorEwmaWeight: 0 });
    failTimes(h, 5, T0);
    expect(h.isHealthy()).toBe(false);
    // 5 failures + 10 successes = 0.67: above the lower threshold, still below the upper one.
    for (let i = 0; i < 10; i++) expect(h.record({ kind: 'success' }, T0 + 100 + i)).toBeUndefined();
    expect(h.score(T0 + 200)).toBeCloseTo(10 / 15, 6);
    expect(h.isHealthy()).toBe(false);
    expect(h.record({ kind: 'success' }, T0 + 300)).toBeUndefined();
    expect(h.record({ kind: 'success' }, T0 + 301)).toBe(true);
  });

  it('heals with time alone once the failures left the window', () => {
    const h = new DeploymentHealth(settings);
    failTimes(h, 6, T0, 30_000);
    expect(h.isHealthy()).toBe(false);
    expect(h.evaluate(T0 + 30_000)).toBeUndefined();
    expect(h.evaluate(T0 + settings.windowMs - 1)).toBeUndefined();
    // Failures gone and the penalised latency average faded below the target.
    expect(h.evaluate(T0 + settings.windowMs + settings.windowMs / settings.buckets + 1)).toBe(true);
  });

  it('counts rate-limited answers as partial failures', () => {
    const h = new DeploymentHealth(settings);
    for (let i = 0; i < 10; i++) h.record({ kind: 'failure', weight: 0.5 }, T0 + i);
    expect(h.score(T0 + 10)).toBeCloseTo(0.5, 6);
  });
});

describe('DeploymentHealth: latency', () => {
  it('scores full marks up to the target and loses at most latencyWeight for slowness', () => {
    const h = new DeploymentHealth({ ...settings, latencyAlpha: 1 });
    h.record({ kind: 'success', latencyMs: 5_000 }, T0);
    expect(h.score(T0)).toBe(1);
    h.record({ kind: 'success', latencyMs: 40_000 }, T0);
    expect(h.score(T0)).toBeCloseTo(1 - 0.5 * (1 - 10_000 / 40_000), 6);
  });

  it('penalises fast failures as slow ones, so failing fast never looks fast', () => {
    const h = new DeploymentHealth({ ...settings, latencyAlpha: 1 });
    h.record({ kind: 'failure', latencyMs: 5 }, T0);
    expect(h.view(T0).latencyMs).toBe(settings.failurePenaltyMs);
  });

  it('smooths latency with an EWMA', () => {
    const h = new DeploymentHealth({ ...settings, latencyAlpha: 0.5 });
    h.record({ kind: 'success', latencyMs: 100 }, T0);
    h.record({ kind: 'success', latencyMs: 300 }, T0);
    expect(h.view(T0).latencyMs).toBe(200);
  });
});

describe('DeploymentHealth: slow start', () => {
  it('ramps admission from the minimum share to 1 over slowStartMs after recovery', () => {
    const h = new DeploymentHealth({ ...settings, latencyWeight: 0 });
    failTimes(h, 5, T0);
    expect(h.admission(T0)).toBe(1); // unhealthy: the filter ranks it, not the ramp
    let recovered = 0;
    for (let i = 0; i < 20; i++) if (h.record({ kind: 'success' }, T0 + 10 + i)) recovered = T0 + 10 + i;
    expect(h.isHealthy()).toBe(true);
    expect(h.admission(recovered)).toBeCloseTo(0.1, 6);
    expect(h.admission(recovered + 15_000)).toBeCloseTo(0.55, 6);
    expect(h.view(recovered + 15_000).slowStart).toEqual({ since: recovered, share: expect.closeTo(0.55, 6) });
    expect(h.admission(recovered + 30_000)).toBe(1);
    expect(h.view(recovered + 30_001).slowStart).toBeUndefined();
  });

  it('has no ramp when slowStartMs is 0', () => {
    const h = new DeploymentHealth({ ...settings, slowStartMs: 0, latencyWeight: 0 });
    failTimes(h, 5, T0);
    for (let i = 0; i < 20; i++) h.record({ kind: 'success' }, T0 + 10 + i);
    expect(h.isHealthy()).toBe(true);
    expect(h.admission(T0 + 30)).toBe(1);
  });
});
