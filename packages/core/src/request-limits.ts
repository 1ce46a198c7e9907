/**
 * Bounded work per request: one iterative walk over a parsed request body, on the way in,
 * before any schema conversion or serialisation can recurse through it. Past a limit the
 * request is refused with a coded 400 naming the field; nothing reaches a vendor.
 */
import { z } from 'zod';
import { SwitchyardError } from './errors.js';
import { hiddenSlot } from './hidden-slot.js';

export interface RequestLimits {
  /** Nesting of objects and arrays anywhere in the body. */
  maxDepth: number;
  /** Elements of any one array. */
  maxArrayLength: number;
  /** Keys of any one object. */
  maxObjectKeys: number;
  maxMessages: number;
  maxTools: number;
  /** JSON size of one tool's `parameters` or of `response_format.json_schema.schema`. */
  maxSchemaBytes: number;
}

export const DEFAULT_REQUEST_LIMITS: Readonly<RequestLimits> = Object.freeze({
  maxDepth: 64,
  maxArrayLength: 10_000,
  maxObjectKeys: 1_000,
  maxMessages: 2_000,
  maxTools: 256,
  maxSchemaBytes: 64 * 1024,
});

const count = z.number().int().positive();

/** `server.limits` in the config: any subset of the limits; the rest keep their defaults. */
export const requestLimitsSchema = z
  .object({ maxDepth: count, maxArrayLength: count, maxObjectKeys: count, maxMessages: count, maxTools: count, maxSchemaBytes: count })
  .partial()
  .strict();

export const REQUEST_LIMIT_CODE = 'SWITCHYARD_ERR_REQUEST_LIMIT';

/**
 * Bodies already walked (by the gateway, with its configured limits): the core does not walk them
 * again. A hidden slot, not a WeakSet: the mark goes with the body (hidden-slot.ts says why).
 */
const walked = hiddenSlot<true>('walked within limits');

function refuse(message: string, path: string): SwitchyardError {
  return new SwitchyardError('invalid-request', message, { code: REQUEST_LIMIT_CODE, path, status: 400, retryable: false });
}

/** The merged limits of each overrides object (the gateway passes the same one on every request). */
const merged = new WeakMap<Partial<RequestLimits>, Readonly<RequestLimits>>();

function limitsWith(overrides: Partial<RequestLimits> | undefined): Readonly<RequestLimits> {
  if (!overrides) return DEFAULT_REQUEST_LIMITS;
  let limits = merged.get(overrides);
  if (!limits) merged.set(overrides, (limits = { ...DEFAULT_REQUEST_LIMITS, ...overrides }));
  return limits;
}

/** Throws a coded `invalid-request` error when `body` exceeds a limit; cost is linear in its size. An overrides object is read once (keep it unchanged). */
export function checkRequestLimits(body: unknown, overrides?: Partial<RequestLimits>): void {
  if (typeof body !== 'object' || body === null || walked.get(body)) return;
  const limits = limitsWith(overrides);
  const top = body as Record<string, unknown>;
  if (Array.isArray(top.messages) && top.messages.length > limits.maxMessages) throw refuse(`messages has ${top.messages.length} entries; the limit is ${limits.maxMessages}`, 'messages');
  if (Array.isArray(top.tools) && top.tools.length > limits.maxTools) throw refuse(`tools has ${top.tools.length} entries; the limit is ${limits.maxTools}`, 'tools');
  // Depth first with an explicit stack: a hostile body cannot overflow the call stack here. Three
  // parallel arrays rather than an object per entry: a request has dozens of nested values.
  const values: object[] = [];
  const depths: number[] = [];
  const tops: string[] = [];
  let fields = 0;
  for (const field in top) {
    if (++fields > limits.maxObjectKeys) throw refuse(`the body has more than ${limits.maxObjectKeys} fields`, '(body)');
    const value = top[field];
    if (typeof value === 'object' && value !== null) {
      values.push(value);
      depths.push(1);
      tops.push(field);
    }
  }
  while (values.length > 0) {
    const value = values.pop()!;
    const depth = depths.pop()!;
    const field = tops.pop()!;
    if (depth > limits.maxDepth) throw refuse(`${field} is nested deeper than ${limits.maxDepth} levels`, field);
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) throw refuse(`an array in ${field} has ${value.length} elements; the limit is ${limits.maxArrayLength}`, field);
      for (const item of value) {
        if (typeof item !== 'object' || item === null) continue;
        values.push(item);
        depths.push(depth + 1);
        tops.push(field);
      }
    } else {
      let keys = 0;
      for (const key in value) {
        if (++keys > limits.maxObjectKeys) throw refuse(`an object in ${field} has more than ${limits.maxObjectKeys} keys`, field);
        const item = (value as Record<string, unknown>)[key];
        if (typeof item !== 'object' || item === null) continue;
        values.push(item);
        depths.push(depth + 1);
        tops.push(field);
      }
    }
  }
  checkSchemaSizes(top, limits.maxSchemaBytes);
  walked.set(body, true);
}

function checkSchemaSizes(body: Record<string, unknown>, max: number): void {
  const sized = (schema: unknown, path: string) => {
    if (schema === undefined || schema === null) return;
    const bytes = JSON.stringify(schema)?.length ?? 0;
    if (bytes > max) throw refuse(`${path} is ${bytes} bytes of JSON schema; the limit is ${max}`, path);
  };
  if (Array.isArray(body.tools)) body.tools.forEach((tool, i) => sized((tool as { function?: { parameters?: unknown } } | null)?.function?.parameters, `tools[${i}].function.parameters`));
  const format = body.response_format as { json_schema?: { schema?: unknown } } | null | undefined;
  sized(format?.json_schema?.schema, 'response_format.json_schema.schema');
}
