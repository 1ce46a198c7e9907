import type { Candidate, ChatRequest, Price } from '@switchyard/core';
import { costOf } from '@switchyard/plugin-quota';
import { describe, expect, it } from 'vitest';
import { inputTokenBound } from '@switchyard/core/internal';
import { reservationUsd } from '../src/cost-estimate.js';

const rules = { reserveOutputTokens: 100, imageTokens: 1_000, serverToolCalls: 1 };
const candidate = { deploymentId: 'claude/sonnet', model: 'claude-sonnet-4-5', provider: 'anthropic', deployment: { endpoint: 'claude', model: 'claude-sonnet-4-5' } } as unknown as Candidate;

describe('reservation upper bound with prompt-cache writes', () => {
  it('reserves input at the cache-write price when it is above the input price, so a prompt written to the cache never bills above its reservation', () => {
    const request: ChatRequest = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(4_000) }] };
    const price: Price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
    const reserved = reservationUsd([candidate], request, rules, () => price);
    const input = inputTokenBound(request, rules.imageTokens);
    // The worst answer: every input token written to the cache, every output token used.
    const worst = costOf({ inputTokens: input, outputTokens: 10, cachedTokens: 0, cacheWriteTokens: input }, price);
    expect(reserved).toBeGreaterThanOrEqual(worst);
    expect(reserved).toBeCloseTo(worst, 12);
    expect(reservationUsd([candidate], request, rules, () => ({ input: 3, output: 15 }))).toBeCloseTo((input * 3 + 10 * 15) / 1e6, 12);
  });
});
