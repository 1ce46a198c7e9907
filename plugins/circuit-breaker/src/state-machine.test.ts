import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { VirtualClock } from '@switchyard/core';
import { closedRecord, DEFAULT_BREAKER, forceClose, forceOpen, openDurationMs, phaseAt, recordFailure, recordSuccess, startProbe, windowStats, type BreakerOptions, type BreakerRecord, type Step } from './state-machine.js';

const opts = DEFAULT_BREAKER;
const noJitter = () => 0;

/** Drives the pure state machine on a virtual clock, collecting transitions. */
function machine(options: BreakerOptions = opts) {
  const clock = new VirtualClock(0);
  let record: BreakerRecord = closedRecord();
  const transitions: string[] = [];
  const apply = (step: Step) => {
    record = step.record;
    if (step.transition) transitions.push(step.transition);
  };
  return {
    clock,
    transitions,
    get record() {
      return record;
    },
    phase: () => phaseAt(record, clock.now()),
    ok: () => apply(recordSuccess(record, clock.now(), options)),
    fail: (random = noJitter) => apply(recordFailure(record, clock.now(), options, random)),
    probe: () => apply(startProbe(record, clock.now())),
    apply,
  };
}

describe('consecutive failures', () => {
  it('opens on the 5th endpoint failure in a row, not the 4th', () => {
    const m = machine();
    for (let i = 0; i < 4; i++) m.fail();
    expect(m.phase()).toBe('closed');
    m.fail();
    expect(m.phase()).toBe('open');
    expect(m.transitions).toEqual(['open']);
  });

  it('a success in between resets the run', () => {
    const m = machine();
    for (let i = 0; i < 4; i++) m.fail();
    m.ok();
    for (let i = 0; i < 4; i++) m.fail();
    expect(m.phase()).toBe('closed');
  });
});

describe('failure-ratio window', () => {
  it('opens at 50 % failures once the window holds 10 calls, not before', async () => {
    const m = machine();
    for (let i = 0; i < 9; i++) {
      if (i % 2 === 0) m.fail();
      else m.ok();
      await m.clock.advance(1000);
    }
    expect(windowStats(m.record, m.clock.now(), opts)).toEqual({ calls: 9, failures: 5 });
    expect(m.phase()).toBe('closed');
    m.ok();
    expect(m.phase()).toBe('closed');
    m.fail();
    expect(m.phase()).toBe('open');
  });

  it('calls age out of the 30 s window bucket by bucket (3 s buckets)', async () => {
    const m = machine();
    m.fail();
    await m.clock.advance(32_999);
    expect(windowStats(m.record, m.clock.now(), opts).calls).toBe(1);
    await m.clock.advance(1);
    expect(windowStats(m.record, m.clock.now(), opts).calls).toBe(0);
  });

  it('one failure after an hour of idleness does not re-open on stale counts', async () => {
    const m = machine();
    for (let i = 0; i < 8; i++) i % 2 ? m.ok() : m.fail();
    await m.clock.advance(3_600_000);
    m.ok();
    m.fail();
    m.fail();
    expect(windowStats(m.record, m.clock.now(), opts)).toEqual({ calls: 3, failures: 2 });
    expect(m.record.buckets).toHaveLength(1);
    expect(m.phase()).toBe('closed');
  });
});

describe('open, half-open, close', () => {
  it('open time grows by 5 s per trip up to 60 s and resets after a success', async () => {
    const m = machine();
    const periods: number[] = [];
    for (let trip = 0; trip < 14; trip++) {
      if (trip === 0) for (let i = 0; i < 5; i++) m.fail();
      else {
        await m.clock.advance(m.record.openUntil - m.clock.now());
        expect(m.phase()).toBe('half-open');
        m.probe();
        m.fail();
      }
      periods.push(m.record.openUntil - m.clock.now());
    }
    expect(periods).toEqual([5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 45_000, 50_000, 55_000, 60_000, 60_000, 60_000]);
    await m.clock.advance(60_000);
    m.probe();
    m.ok();
    expect(m.phase()).toBe('closed');
    expect(m.record.trips).toBe(0);
    for (let i = 0; i < 5; i++) m.fail();
    expect(m.record.openUntil - m.clock.now()).toBe(5_000);
  });

  it('jitter adds up to 10 % and is present at the cap', () => {
    expect(openDurationMs(1, opts, () => 0.5)).toBe(5_250);
    expect(openDurationMs(30, opts, () => 0.999)).toBeCloseTo(65_994, 0);
    expect(openDurationMs(30, opts, () => Number.NaN)).toBe(60_000);
  });

  it('half-open once openUntil passes; a probe success closes with a fresh window', async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) m.fail();
    await m.clock.advance(4_999);
    expect(m.phase()).toBe('open');
    await m.clock.advance(1);
    expect(m.phase()).toBe('half-open');
    m.probe();
    m.ok();
    expect(m.transitions).toEqual(['open', 'half-open', 'close']);
    expect(windowStats(m.record, m.clock.now(), opts).calls).toBe(0);
  });

  it('an answer still in flight when the breaker opened does not close it', () => {
    const m = machine();
    for (let i = 0; i < 5; i++) m.fail();
    m.ok();
    expect(m.phase()).toBe('open');
  });

  it('failures during the open period do not extend it', async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) m.fail();
    const until = m.record.openUntil;
    await m.clock.advance(1000);
    m.fail();
    expect(m.record.openUntil).toBe(until);
    expect(m.record.trips).toBe(1);
  });

  it('forced open stays open until forced closed; a timed force ends in half-open', async () => {
    const m = machine();
    m.apply(forceOpen(m.record, m.clock.now(), Number.POSITIVE_INFINITY));
    await m.clock.advance(86_400_000);
    m.ok();
    expect(m.phase()).toBe('open');
    m.apply(forceClose(m.record));
    expect(m.phase()).toBe('closed');
    m.apply(forceOpen(m.record, m.clock.now(), 2_000));
    await m.clock.advance(2_000);
    expect(m.phase()).toBe('half-open');
    expect(m.transitions).toEqual(['open', 'close', 'open']);
  });
});

describe('window properties', () => {
  const events = fc.array(fc.record({ gapMs: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 7_200_000 })), failure: fc.boolean() }), { maxLength: 300 });
  const options: BreakerOptions = { ...opts, consecutiveFailures: 1_000_000, minThroughput: 1_000_000 };

  it('window stats equal a brute-force count of the calls whose bucket overlaps the window', () => {
    fc.assert(
      fc.property(events, (list) => {
        let record = closedRecord();
        let now = 0;
        const seen: { at: number; failure: boolean }[] = [];
        const bucketMs = options.windowMs / options.buckets;
        for (const e of list) {
          now += e.gapMs;
          record = (e.failure ? recordFailure(record, now, options, noJitter) : recordSuccess(record, now, options)).record;
          seen.push({ at: now, failure: e.failure });
          const live = seen.filter((s) => Math.floor(s.at / bucketMs) * bucketMs + bucketMs > now - options.windowMs);
          const stats = windowStats(record, now, options);
          if (stats.calls !== live.length || stats.failures !== live.filter((s) => s.failure).length) return false;
          if (record.buckets.length > options.buckets + 1) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('an idle gap longer than the window evicts everything', () => {
    fc.assert(
      fc.property(events, fc.integer({ min: 33_000, max: 10_000_000 }), (list, gap) => {
        let record = closedRecord();
        let now = 0;
        for (const e of list) {
          now += e.gapMs;
          record = (e.failure ? recordFailure(record, now, options, noJitter) : recordSuccess(record, now, options)).record;
        }
        return windowStats(record, now + gap, options).calls === 0;
      }),
    );
  });

  it('never opens on the ratio below minimum throughput, always opens at N in a row', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 9 }), (outcomes) => {
        let record = closedRecord();
        let run = 0;
        let reached = false;
        for (const failure of outcomes) {
          record = (failure ? recordFailure(record, 0, opts, noJitter) : recordSuccess(record, 0, opts)).record;
          run = failure ? run + 1 : 0;
          if (run >= opts.consecutiveFailures) reached = true;
          if ((record.state === 'open') !== reached) return false;
        }
        return true;
      }),
    );
  });
});

describe('N failures within T', () => {
  const within: BreakerOptions = { ...opts, consecutiveFailures: 1_000, minThroughput: 1_000_000, failuresWithin: { count: 5, windowMs: 120_000 } };

  it('opens on the 5th failure inside 2 minutes even with successes in between', async () => {
    const m = machine(within);
    for (let i = 0; i < 4; i++) {
      m.fail();
      m.ok();
      await m.clock.advance(25_000);
    }
    expect(m.phase()).toBe('closed');
    m.fail(); // failures at 0, 25, 50, 75, 100 s
    expect(m.phase()).toBe('open');
  });

  it('does not open when the failures are spread wider than T', async () => {
    const m = machine(within);
    for (let i = 0; i < 20; i++) {
      m.fail();
      await m.clock.advance(30_001);
    }
    expect(m.phase()).toBe('closed');
    expect(m.record.failureTimes).toHaveLength(5);
  });

  it('property: trips exactly when the naive count of failures in (now − T, now] first reaches N', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1_000, max: 60_000 }), fc.array(fc.record({ gap: fc.integer({ min: 0, max: 30_000 }), ok: fc.boolean() }), { maxLength: 60 }), (n, windowMs, events) => {
        const o: BreakerOptions = { ...within, failuresWithin: { count: n, windowMs } };
        let record = closedRecord();
        let now = 0;
        const failures: number[] = [];
        for (const e of events) {
          now += e.gap;
          if (e.ok) {
            record = recordSuccess(record, now, o).record;
            continue;
          }
          failures.push(now);
          const step = recordFailure(record, now, o, noJitter);
          const expected = failures.filter((t) => now - t <= windowMs).length >= n;
          expect(step.transition === 'open').toBe(expected);
          if (step.transition === 'open') return; // the oracle models the closed state only
          record = step.record;
        }
      }),
      { numRuns: 300 },
    );
  });
});
