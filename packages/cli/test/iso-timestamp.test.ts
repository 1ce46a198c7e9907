import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../src/iso-timestamp.js';

describe('isoTimestamp', () => {
  it("writes exactly what pino's isoTime writes, across seconds, days and years", () => {
    let at = 0;
    const stamp = isoTimestamp(() => at);
    const moments = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 59_999, 60_000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(2026, 11, 2, 6, 22, 46, 5)];
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      moments.push(Date.UTC(2026, 0, 1) + seed * 17);
    }
    for (const moment of moments) {
      at = moment;
      const realNow = Date.now;
      Date.now = () => moment;
      try {
        expect(stamp()).toBe(pino.stdTimeFunctions.isoTime());
      } finally {
        Date.now = realNow;
      }
    }
  });

  it('formats a second again when the clock goes back', () => {
    let at = Date.UTC(2026, 11, 2, 6, 0, 1, 500);
    const stamp = isoTimestamp(() => at);
    expect(stamp()).toBe(',"time":"2026-12-02T06:00:01.500Z"');
    at = Date.UTC(2026, 11, 2, 5, 59, 59, 42);
    expect(stamp()).toBe(',"time":"2026-12-02T05:59:59.042Z"');
  });
});
