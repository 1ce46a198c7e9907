import { describe, expect, it } from 'vitest';
import { PeakEwma } from './peak-ewma.js';

const options = { decayMs: 10_000, defaultRttMs: 1_000 };

describe('PeakEwma', () => {
  it('starts at the default RTT and takes the first sample as is', () => {
    const e = new PeakEwma(options);
    expect(e.hasHistory).toBe(false);
    expect(e.estimate(0)).toBe(1_000);
    e.observe(200, 0);
    expect(e.estimate(0)).toBe(200);
  });

  it('jumps to a slower sample at once (peak-sensitive)', () => {
    const e = new PeakEwma(options);
    e.observe(100, 0);
    e.observe(900, 1);
    expect(e.estimate(1)).toBe(900);
  });

  it('blends a faster sample with a weight that grows with the gap since the last one', () => {
    const e = new PeakEwma(options);
    e.observe(1000, 0);
    e.observe(0, 10_000);
    expect(e.estimate(10_000)).toBeCloseTo(1000 * Math.exp(-1), 6);
    const quick = new PeakEwma(options);
    quick.observe(1000, 0);
    quick.observe(0, 100);
    expect(quick.estimate(100)).toBeCloseTo(1000 * Math.exp(-0.01), 6);
  });

  it('decays toward zero while idle, so a once-slow deployment is tried again', () => {
    const e = new PeakEwma(options);
    e.observe(800, 0);
    expect(e.estimate(0)).toBe(800);
    expect(e.estimate(20_000)).toBeCloseTo(800 * Math.exp(-2), 6);
  });

  it('scales by requests in flight and probes an unknown deployment at most once', () => {
    const e = new PeakEwma(options);
    expect(e.load(0, 0)).toBe(1_000);
    expect(e.load(0, 1)).toBeGreaterThan(1e8);
    e.observe(100, 0);
    expect(e.load(0, 2)).toBe(300);
  });

  it('never produces NaN from bad input', () => {
    const e = new PeakEwma(options);
    e.observe(Number.NaN, 0);
    e.observe(-5, 10);
    expect(Number.isFinite(e.estimate(20))).toBe(true);
  });
});
