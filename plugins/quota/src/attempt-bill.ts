/**
 * What one attempt costs. The vendor's reported usage when there is any; otherwise an attempt
 * that reached the vendor (its response headers arrived with a 2xx) and then failed — a
 * timeout after headers, a cut or stalled stream, a hedge loser, a client that left after the
 * first token — is billed with the estimated input tokens plus the output seen, flagged
 * `estimated`, because the vendor bills it too. Vendor error answers (4xx / 5xx) are not billed.
 */
import type { AttemptOutcome, Price } from '@switchyard/core';
import { costOf, tokensOf, type TokenCounts } from './prices.js';

export interface AttemptBill {
  tokens: TokenCounts;
  costUsd: number;
  /** True when the tokens are our estimate, not the vendor's count. */
  estimated: boolean;
  /** False when nothing is billed (no usage and the vendor never worked on it). */
  charged: boolean;
}

/** Rough tokens of text: characters / 4, as the classify stage estimates prompts. */
const CHARS_PER_TOKEN = 4;

export function billAttempt(outcome: AttemptOutcome, estimatedInputTokens: number, price: Price | undefined): AttemptBill {
  if (outcome.usage) {
    const tokens = tokensOf(outcome.usage);
    return { tokens, costUsd: costOf(tokens, price), estimated: false, charged: true };
  }
  const reachedVendor = !outcome.ok && outcome.headersReceived === true && outcome.error?.status === undefined;
  if (!reachedVendor) {
    const tokens = tokensOf(undefined);
    return { tokens, costUsd: 0, estimated: false, charged: false };
  }
  const tokens: TokenCounts = { inputTokens: estimatedInputTokens, outputTokens: Math.ceil((outcome.outputChars ?? 0) / CHARS_PER_TOKEN), cachedTokens: 0 };
  return { tokens, costUsd: costOf(tokens, price), estimated: true, charged: true };
}
