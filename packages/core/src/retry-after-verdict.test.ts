import { describe, expect, it } from 'vitest';
import { retryAfterVerdict } from './retry-after-verdict.js';

describe('retryAfterVerdict', () => {
  it('waits when the wait is short and the attempt after it fits the deadline', () => {
    expect(retryAfterVerdict(1_000, { maxWaitMs: 5_000, timeLeftMs: 10_000, minAttemptMs: 500 })).toEqual({ action: 'wait', delayMs: 1_000 });
  });

  it('moves on when the wait is longer than worth waiting', () => {
    expect(retryAfterVerdict(5_001, { maxWaitMs: 5_000, timeLeftMs: 60_000 })).toEqual({ action: 'move-on', reason: 'too-long' });
    expect(retryAfterVerdict(5_000, { maxWaitMs: 5_000 })).toEqual({ action: 'wait', delayMs: 5_000 });
  });

  it('moves on when the attempt after the wait would not get its minimum time', () => {
    expect(retryAfterVerdict(9_501, { timeLeftMs: 10_000, minAttemptMs: 500 })).toEqual({ action: 'move-on', reason: 'past-deadline' });
    expect(retryAfterVerdict(9_500, { timeLeftMs: 10_000, minAttemptMs: 500 })).toEqual({ action: 'wait', delayMs: 9_500 });
  });

  it('never starts an attempt at the deadline, even with no minimum', () => {
    expect(retryAfterVerdict(10_000, { timeLeftMs: 10_000 })).toEqual({ action: 'move-on', reason: 'past-deadline' });
    expect(retryAfterVerdict(9_999, { timeLeftMs: 10_000 })).toEqual({ action: 'wait', delayMs: 9_999 });
  });
});
