import { describe, expect, it } from 'vitest';
import { DecayedRate } from './decayed-rate.js';
import { DeploymentHealth, type HealthSettings } from './deployment-health.js';
import { healthOptionsSchema } from './options.js';

const T0 = 1_700_000_000_000;
const H = 10_000;

describe('DecayedRate: the EWMA error rate', () => {
  it('weights each sample by 2^(-age / half-life)', () => {
    const rate = new DecayedRate(H);
    expect(rate.rate(T0)).toBe(0);
    for (let i = 0; i < 10; i++) rate.add(T0, 1);
    expect(rate.rate(T0)).toBe(1);
    // Ten successes one half-life later: the failures weigh 5, the successes 10.
    for (let i = 0; i < 10; i++) rate.add(T0 + H, 0);
    expect(rate.rate(T0 + H)).toBeCloseTo(5 / 15, 12);
    // Time alone keeps the ratio while there is at least one sample's weight…
    expect(rate.rate(T0 + 2 * H)).toBeCloseTo(5 / 15, 12);
  });

  it('fades toward 0 once less than one sample\'s weight is left, with the same half-life', () => {
    const rate = new DecayedRate(H);
    rate.add(T0, 1);
    expect(rate.rate(T0 + H)).toBeCloseTo(0.5, 12);
    expect(rate.rate(T0 + 3 * H)).toBeCloseTo(0.125, 12);
    rate.add(T0 + 3 * H, 0.5);
    // A rate-limited answer counts as half a failure: (0.125 + 0.5) / 1.125.
    expect(rate.rate(T0 + 3 * H)).toBeCloseTo(0.625 / 1.125, 12);
  });
});

describe('DeploymentHealth: the EWMA in the score', () => {
  const base: HealthSettings = { ...healthOptionsSchema.parse({}), latencyWeight: 0 };
  /** 50 successes, one a second, then 20 failures within the last 5 s. */
  function recentBurst(settings: HealthSettings): DeploymentHealth {
    const h = new DeploymentHealth(settings);
    for (let i = 0; i < 50; i++) h.record({ kind: 'success' }, T0 + i * 1_000);
    for (let i = 0; i < 20; i++) h.record({ kind: 'failure' }, T0 + 50_000 + i * 250);
    return h;
  }

  it('reacts to a fresh burst that the window dilutes', () => {
    const now = T0 + 55_000;
    const windowOnly = recentBurst({ ...base, errorEwmaWeight: 0 });
    const ewmaOnly = recentBurst({ ...base, errorEwmaWeight: 1 });
    expect(windowOnly.view(now).successRate).toBeCloseTo(50 / 70, 6);
    expect(windowOnly.isHealthy()).toBe(true);
    expect(ewmaOnly.view(now).errorRateEwma).toBeGreaterThan(0.55);
    expect(ewmaOnly.isHealthy()).toBe(false);
  });

  it('by default blends the two halves: score = 1 − (window error + EWMA) / 2', () => {
    const now = T0 + 55_000;
    const h = recentBurst(base);
    const { successRate, errorRateEwma, score } = h.view(now);
    expect(errorRateEwma).toBeGreaterThan(1 - successRate);
    expect(score).toBeCloseTo(1 - ((1 - successRate) + errorRateEwma) / 2, 12);
  });

  it('starts afresh when a trial restores the deployment', () => {
    const h = recentBurst({ ...base, errorEwmaWeight: 1 });
    h.restore(T0 + 56_000, 100);
    expect(h.view(T0 + 56_000)).toMatchObject({ errorRateEwma: 0, score: 1 });
  });
});
