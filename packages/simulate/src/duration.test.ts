import { describe, expect, it } from 'vitest';
import { formatSimDuration, parseSimDuration } from './duration.js';

describe('scenario durations', () => {
  it('parses units up to days, combined, and plain milliseconds', () => {
    expect(parseSimDuration('30s')).toBe(30_000);
    expect(parseSimDuration('2d3h')).toBe(2 * 86_400_000 + 3 * 3_600_000);
    expect(parseSimDuration('1h 30m')).toBe(5_400_000);
    expect(parseSimDuration('250ms')).toBe(250);
    expect(parseSimDuration('1.5s')).toBe(1_500);
    expect(parseSimDuration(1200)).toBe(1200);
  });

  it('rejects what is not a duration', () => {
    for (const bad of ['', '3', '3x', 'd', '2d-3h', -5, Number.NaN, null, {}]) expect(parseSimDuration(bad)).toBeUndefined();
  });

  it('formats compactly, and round-trips the compact form', () => {
    expect(formatSimDuration(320)).toBe('320ms');
    expect(formatSimDuration(1_500)).toBe('1.5s');
    expect(formatSimDuration(27 * 3_600_000)).toBe('1d3h');
    expect(parseSimDuration(formatSimDuration(90 * 60_000))).toBe(90 * 60_000);
  });
});
