import { describe, expect, it } from 'vitest';
import { formatDuration } from './duration-text.js';

describe('formatDuration', () => {
  it('says a duration in at most two units, seconds rounded up, zero parts left out', () => {
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(90 * 60_000)).toBe('1h 30m');
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(61_500)).toBe('1m 2s');
    expect(formatDuration(1)).toBe('1s');
    expect(formatDuration(-5)).toBe('0s');
    expect(formatDuration(2 * 86_400_000 + 5 * 3_600_000 + 59_000)).toBe('2d 5h');
  });
});
