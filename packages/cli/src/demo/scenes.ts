/**
 * The demo's scenes: each breaks the primary vendor in one way real vendors break, sends a
 * few requests and says what the caller and the vendors saw.
 */
import type { FaultName, FaultOptions } from '@switchyard/simulate';

export interface Scene {
  title: string;
  /** What the primary (OpenAI-style) vendor does during the scene. */
  primary: FaultName;
  primaryOptions?: FaultOptions;
  /** The secondary (Anthropic-style) vendor's behaviour; default healthy. */
  secondary?: FaultName;
  tertiary?: FaultName;
  requests: number;
  stream: boolean;
  /** Printed under the table row: what to notice. */
  lesson: string;
}

export const SCENES: Scene[] = [
  { title: 'healthy', primary: 'ok', requests: 3, stream: false, lesson: 'the primary answers; one attempt each' },
  { title: 'primary 503', primary: 'unavailable', requests: 3, stream: false, lesson: 'one retry on the primary, then failover to Anthropic; the caller still gets OpenAI-shaped answers' },
  { title: 'primary 429, Retry-After 1 s', primary: 'rate-limited', primaryOptions: { retryAfterS: 1, times: 1 }, requests: 2, stream: false, lesson: 'a short Retry-After is waited out on the same deployment, never sooner than asked' },
  { title: 'primary TCP reset', primary: 'reset', requests: 2, stream: false, lesson: 'a reset before headers is retried once, then failed over' },
  { title: 'primary silent (no first token)', primary: 'slow-first-token', primaryOptions: { firstTokenMs: 60_000 }, requests: 1, stream: true, lesson: 'abandoned after the 1.5 s first-token limit, not retried on the same route' },
  { title: 'primary cuts the stream mid-answer', primary: 'stream-cut', primaryOptions: { tokens: 24, afterTokens: 12 }, requests: 1, stream: true, lesson: 'the answer is continued on Anthropic with the partial text as a prefill: one whole answer' },
  { title: 'primary stalls mid-stream', primary: 'stream-stall', primaryOptions: { tokens: 24, afterTokens: 12 }, requests: 1, stream: true, lesson: 'the idle limit ends the stall; continued elsewhere, never a truncated success' },
  { title: 'primary down (breaker)', primary: 'unavailable', requests: 12, stream: false, lesson: 'the breaker opens: after a few failures the primary is skipped, not hammered' },
  { title: 'every vendor down', primary: 'unavailable', secondary: 'overloaded', tertiary: 'unavailable', requests: 2, stream: false, lesson: 'a labelled degraded answer instead of an opaque 5xx' },
];
