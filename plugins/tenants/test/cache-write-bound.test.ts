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

describe('reservation upper bound of a long prompt', () => {
  const price: Price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75, longContext: { aboveInputTokens: 200_000, input: 6, output: 22.5, cachedInput: 0.6, cacheWrite: 7.5 } };
  it('reserves a prompt past the threshold at the long-context rates, the most it can bill', () => {
    // About 250k tokens of prompt: past Claude's 200k threshold.
    const request: ChatRequest = { model: 'm', max_tokens: 1_000, messages: [{ role: 'user', content: 'word '.repeat(250_000) }] };
    const input = inputTokenBound(request, rules.imageTokens);
    expect(input).toBeGreaterThan(200_000);
    const reserved = reservationUsd([candidate], request, rules, () => price);
    const worst = costOf({ inputTokens: input, outputTokens: 1_000, cachedTokens: 0, cacheWriteTokens: input }, price);
    expect(reserved).toBeCloseTo(worst, 12);
    expect(reserved).toBeCloseTo((input * 7.5 + 1_000 * 22.5) / 1e6, 12);
    // Before the tier was known the same request reserved half of what it may bill.
    expect(reserved).toBeGreaterThan(1.9 * ((input * 3.75 + 1_000 * 15) / 1e6));
  });

  it('bills a prompt at or below the threshold at the base rates, and every token of a longer one at the long rates', () => {
    expect(costOf({ inputTokens: 200_000, outputTokens: 1_000, cachedTokens: 0 }, price)).toBeCloseTo((200_000 * 3 + 1_000 * 15) / 1e6, 12);
    expect(costOf({ inputTokens: 200_001, outputTokens: 1_000, cachedTokens: 100_000, cacheWriteTokens: 50_000 }, price)).toBeCloseTo((50_001 * 6 + 100_000 * 0.6 + 50_000 * 7.5 + 1_000 * 22.5) / 1e6, 12);
    // An unset long-context cache price is the long-context input price.
    const bare: Price = { input: 1.25, output: 10, longContext: { aboveInputTokens: 200_000, input: 2.5, output: 15 } };
    expect(costOf({ inputTokens: 300_000, outputTokens: 0, cachedTokens: 100_000 }, bare)).toBeCloseTo((300_000 * 2.5) / 1e6, 12);
  });
});
