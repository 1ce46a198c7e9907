import { describe, expect, it } from 'vitest';
import { dayOf, isoTime } from '../src/usage-record.js';

const byDate = (at: string | number) => new Date(at).toISOString().slice(0, 10);

describe('dayOf', () => {
  it('answers what toISOString says for every kind of time, the day seen last among them', () => {
    const times: (string | number)[] = [
      '2026-12-06T16:03:30.942Z',
      '2026-12-06T00:00:00.000Z',
      '2026-12-06T23:59:59.999Z',
      '2026-12-06T23:30:00-05:00',
      '2026-12-06T23:30:00+01:00',
      '2026-12-06T12:00:00z',
      '2026-12-06T12:00:00.123456Z',
      '2026-12-07T00:00:00Z',
      '2026-12-06T10:00:00Z',
      Date.UTC(2026, 11, 6, 23, 59),
      '2026-12-06',
    ];
    for (const at of times) expect(dayOf(at), String(at)).toBe(byDate(at));
  });

  it('throws for a time that is none, though it starts with the day seen last', () => {
    expect(dayOf('2026-12-06T10:00:00.000Z')).toBe('2026-12-06');
    for (const at of ['2026-12-06T25:00:00Z', '2026-12-06T10:61:00Z', '2026-12-06Tnonsense', 'not a time']) expect(() => dayOf(at), at).toThrow(RangeError);
  });

  it('isoTime writes what toISOString writes, the millisecond asked last included', () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 59, 999);
    for (const ms of [start, start, start + 1, start + 1, start - 86_400_000, 0, start]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
