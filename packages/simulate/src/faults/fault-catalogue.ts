/**
 * The fault catalogue: every named fault as a pure function from (vendor wire, request) to a
 * FaultPlan. Scenario names are shared by the msw handlers, the fault server and the simulation.
 */
import type { RandomSource } from '@switchyard/core';
import type { FaultPlan, PlannedChunk } from './fault-plan.js';
import { healthyTokens } from './healthy-text.js';
import type { Latency, Schedule } from './schedules.js';
import { toLatency } from './schedules.js';
import type { VendorWire, WireContext, WireErrorName } from './vendor-wire.js';

export const FAULT_NAMES = [
  'ok',
  'rate-limited',
  'server-error',
  'unavailable',
  'overloaded',
  'reset',
  'hang',
  'slow-first-token',
  'stream-cut',
  'stream-stall',
  'malformed-event',
  'no-done',
  'stream-error',
  'context-length',
  'content-filter',
  'prefill-rejected',
  'key-invalid',
  'out-of-credit',
] as const;

export type FaultName = (typeof FAULT_NAMES)[number];

export interface FaultOptions {
  /** Answer at most this many requests, then let them pass (msw: to the next handler). */
  times?: number;
  /** Active only while the schedule says so (see schedules.ts). */
  when?: Schedule;
  /** Extra delay before the response (or reset) starts. */
  latency?: number | Latency;
  /** Healthy text: how many tokens (default 8). */
  tokens?: number;
  /** Healthy text: explicit tokens instead of the default words. */
  text?: string[];
  /** Delay before each content token after the first. */
  tokenDelay?: number | Latency;
  /** `rate-limited`: Retry-After in seconds (omitted: no header). */
  retryAfterS?: number;
  /** `out-of-credit`: status override (402 for DeepSeek-style OpenAI-compatible vendors). */
  status?: number;
  /** Stream faults: content tokens sent before the fault strikes (default 3; `stream-error` 2). */
  afterTokens?: number;
  /** `slow-first-token`: delay before the first content token (default 15 s, past core's 10 s limit). */
  firstTokenMs?: number;
}

export interface PlanInput {
  wire: VendorWire;
  ctx: WireContext;
  options: FaultOptions;
  random: RandomSource;
}

const respond = (status: number, headers: Record<string, string>, chunks: PlannedChunk[], end: 'close' | 'cut' | 'stall' = 'close'): FaultPlan => ({ kind: 'respond', delayMs: 0, status, headers, chunks, end });
const now = (data: string): PlannedChunk => ({ data, delayMs: 0 });

function errorPlan({ wire, ctx, options }: PlanInput, name: WireErrorName): FaultPlan {
  const e = wire.error(ctx, name, options);
  return respond(e.status, e.headers, [now(e.body)]);
}

interface StreamShape {
  /** Content tokens to send (default: all). */
  tokens?: number;
  finish?: boolean;
  terminator?: boolean;
  firstTokenDelayMs?: number;
  /** An extra event after this many tokens. */
  insert?: { after: number; data: string };
}

function tokensOf(options: FaultOptions): string[] {
  return options.text ?? healthyTokens(options.tokens);
}

/** The vendor's SSE events for a (possibly truncated) answer. */
function streamChunks({ wire, ctx, options, random }: PlanInput, shape: StreamShape = {}): PlannedChunk[] {
  const all = tokensOf(options);
  const count = Math.min(shape.tokens ?? all.length, all.length);
  const tokenDelay = toLatency(options.tokenDelay);
  const chunks = wire.streamStart(ctx).map(now);
  for (let i = 0; i < count; i++) {
    if (shape.insert?.after === i) chunks.push(now(shape.insert.data));
    const delayMs = i === 0 ? (shape.firstTokenDelayMs ?? 0) : tokenDelay(random);
    chunks.push({ data: wire.streamToken(ctx, all[i]!, i), delayMs });
  }
  if (shape.insert && shape.insert.after >= count) chunks.push(now(shape.insert.data));
  if (shape.finish !== false) chunks.push(...wire.streamFinish(ctx, count, all.slice(0, count).join('')).map(now));
  if (shape.terminator !== false && shape.finish !== false) chunks.push(...wire.streamTerminator(ctx).map(now));
  return chunks;
}

function healthy(input: PlanInput, shape: StreamShape = {}): FaultPlan {
  const { wire, ctx } = input;
  return respond(200, wire.headers(ctx), ctx.stream ? streamChunks(input, shape) : healthyBody(input));
}

const afterTokens = (options: FaultOptions, fallback = 3) => options.afterTokens ?? fallback;

export const FAULT_CATALOGUE: Record<FaultName, (input: PlanInput) => FaultPlan> = {
  ok: (input) => healthy(input),
  'rate-limited': (input) => errorPlan(input, 'rate-limited'),
  'server-error': (input) => errorPlan(input, 'server-error'),
  unavailable: (input) => errorPlan(input, 'unavailable'),
  overloaded: (input) => errorPlan(input, 'overloaded'),
  'context-length': (input) => errorPlan(input, 'context-length'),
  'key-invalid': (input) => errorPlan(input, 'key-invalid'),
  'out-of-credit': (input) => errorPlan(input, 'out-of-credit'),
  reset: () => ({ kind: 'reset', delayMs: 0 }),
  hang: () => ({ kind: 'hang' }),
  'slow-first-token': (input) => {
    const wait = input.options.firstTokenMs ?? 15_000;
    if (input.ctx.stream) return healthy(input, { firstTokenDelayMs: wait });
    const plan = healthy(input);
    return { ...plan, delayMs: wait } as FaultPlan;
  },
  'stream-cut': (input) => {
    const { wire, ctx } = input;
    if (!ctx.stream) return respond(200, wire.headers(ctx), healthyBody(input), 'cut');
    // The peer dies halfway through the token after `afterTokens`: no finish, no terminator.
    const sent = afterTokens(input.options) + 1;
    return respond(200, wire.headers(ctx), streamChunks(input, { tokens: sent, finish: false }), 'cut');
  },
  'stream-stall': (input) => {
    const { wire, ctx } = input;
    if (!ctx.stream) return respond(200, wire.headers(ctx), [], 'stall');
    return respond(200, wire.headers(ctx), streamChunks(input, { tokens: afterTokens(input.options), finish: false }), 'stall');
  },
  'malformed-event': (input) => {
    const { wire, ctx } = input;
    // Non-streaming: a 200 whose JSON body is broken.
    if (!ctx.stream) return respond(200, wire.headers(ctx), [now(halfJson(healthyBody(input)[0]!.data))]);
    return healthy(input, { insert: { after: afterTokens(input.options), data: wire.malformedEvent(ctx) } });
  },
  'no-done': (input) => healthy(input, { terminator: false }),
  'stream-error': (input) => {
    const { wire, ctx } = input;
    if (!ctx.stream) return errorPlan(input, 'overloaded');
    const sent = afterTokens(input.options, 2);
    const chunks = streamChunks(input, { tokens: sent, finish: false });
    chunks.push(now(wire.streamError(ctx, Math.min(sent, tokensOf(input.options).length))));
    return respond(200, wire.headers(ctx), chunks);
  },
  'content-filter': (input) => {
    const answer = input.wire.contentFilter(input.ctx);
    return respond(answer.status, answer.headers, 'events' in answer ? answer.events.map(now) : [now(answer.body)]);
  },
  'prefill-rejected': (input) => (input.wire.endsWithPrefill(input.ctx.request) ? errorPlan(input, 'prefill-rejected') : healthy(input)),
};

function healthyBody(input: PlanInput): PlannedChunk[] {
  const tokens = tokensOf(input.options);
  return [now(input.wire.completion(input.ctx, tokens.join(''), tokens.length))];
}

function halfJson(body: string): string {
  return body.slice(0, Math.floor(body.length / 2));
}
