/**
 * What one attempt costs. The vendor's reported usage when there is any; otherwise an attempt
 * the vendor worked on is billed as an estimate, flagged `estimated`, because the vendor bills
 * it too:
 *
 * - `output-seen`: its response headers arrived with a 2xx and it then failed (a timeout after
 *   the headers, a cut or stalled stream, a hedge loser, a client that left after the first
 *   token): the estimated input tokens plus the output seen (characters / 4);
 * - `elapsed`: it ended before the response headers, after its body was fully written to the
 *   vendor's socket (a timeout, a client that left, a hedge that lost, a connection reset: a
 *   non-streaming vendor sends its headers only once the whole answer is written): the
 *   estimated input tokens plus the output the model could write in the time it had, at the
 *   deployment's tokens per second, capped by the request's `max_tokens` / `max_completion_tokens`.
 *   An attempt whose body never left (queued for a connection) is never billed. With a
 *   transport that cannot tell (a custom dispatcher), only timeouts are billed this way.
 *
 * Vendor error answers (4xx / 5xx) are not billed.
 */
import { type AttemptOutcome, type ChatRequest, type Price } from '@switchyard/core';
import { serverToolKindsOffered, toolCallsCostUsd } from '@switchyard/core/internal';
import { costOf, tokensOf, type TokenCounts } from './prices.js';

export type EstimateBasis = 'output-seen' | 'elapsed';

export interface AttemptBill {
  tokens: TokenCounts;
  costUsd: number;
  /** True when the tokens are our estimate, not the vendor's count. */
  estimated: boolean;
  /** How an estimate was made. */
  estimate?: EstimateBasis;
  /** False when nothing is billed (no usage and the vendor never worked on it). */
  charged: boolean;
}

/** Rough tokens of text: characters / 4, as the classify stage estimates prompts. */
const CHARS_PER_TOKEN = 4;

export interface BillContext {
  /** The classify stage's estimate of the prompt. */
  estimatedInputTokens: number;
  price: Price | undefined;
  /** How fast the deployment writes output (an `elapsed` estimate). */
  outputTokensPerSecond: number;
  /** Caps an elapsed-time estimate at its `max_tokens`; its server tools price the calls that ran (core's toolCallsCostUsd). */
  request?: ChatRequest;
}

export function billAttempt(outcome: AttemptOutcome, context: BillContext): AttemptBill {
  const { price } = context;
  if (outcome.usage) {
    const tokens = tokensOf(outcome.usage);
    return { tokens, costUsd: costOf(tokens, price) + toolCallsCostUsd(outcome.usage, price, context.request && serverToolKindsOffered(context.request)), estimated: false, charged: true };
  }
  const estimate = estimateBasis(outcome);
  if (!estimate) return { tokens: tokensOf(undefined), costUsd: 0, estimated: false, charged: false };
  const outputTokens = estimate === 'output-seen' ? Math.ceil((outcome.outputChars ?? 0) / CHARS_PER_TOKEN) : elapsedOutput(outcome.latencyMs, context);
  const tokens: TokenCounts = { inputTokens: context.estimatedInputTokens, outputTokens, cachedTokens: 0 };
  return { tokens, costUsd: costOf(tokens, price), estimated: true, estimate, charged: true };
}

function estimateBasis(outcome: AttemptOutcome): EstimateBasis | undefined {
  if (outcome.ok || outcome.error?.status !== undefined) return undefined;
  if (outcome.headersReceived === true) return 'output-seen';
  // The transport knows whether the vendor got the whole request: never billed before, always after.
  if (outcome.requestSent !== undefined) return outcome.requestSent ? 'elapsed' : undefined;
  return outcome.error?.kind === 'timeout' ? 'elapsed' : undefined;
}

function elapsedOutput(latencyMs: number, context: BillContext): number {
  const written = Math.ceil((Math.max(0, latencyMs) / 1000) * context.outputTokensPerSecond);
  const cap = context.request?.max_completion_tokens ?? context.request?.max_tokens;
  return typeof cap === 'number' && cap >= 0 ? Math.min(written, cap) : written;
}
