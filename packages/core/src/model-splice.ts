/**
 * A client's JSON body sent on with another model: the text as it came, with its `"model"`
 * value replaced, instead of the parsed body serialised again. Only where the replacement is
 * certain: the key and value (`"model": "<the client's model>"`, any white space) occur exactly
 * once. A string inside the JSON cannot contain them unescaped, so one occurrence is the
 * top-level field; a nested `"model"` with the same value makes two, and then the caller
 * serialises as before.
 */
import type { RequestOrigin } from './request-origin.js';

const cache = new Map<string, RegExp>();

function patternFor(model: string): RegExp {
  let pattern = cache.get(model);
  if (!pattern) {
    const value = JSON.stringify(model).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`"model"\\s*:\\s*${value}`, 'g');
    // Logical model names are few; a client sending many distinct names gets no cache growth.
    if (cache.size < 256) cache.set(model, pattern);
  }
  pattern.lastIndex = 0;
  return pattern;
}

/** `text` with its one top-level `"model": "<model>"` made `"model":"<upstream>"`, or undefined when that is not certain. */
export function withModelReplaced(text: string, model: string, upstream: string): string | undefined {
  const pattern = patternFor(model);
  const first = pattern.exec(text);
  if (!first) return undefined;
  if (pattern.exec(text) !== null) return undefined;
  return `${text.slice(0, first.index)}"model":${JSON.stringify(upstream)}${text.slice(first.index + first[0].length)}`;
}

/**
 * The client's own text for an attempt to a vendor of its dialect, the upstream model spliced in:
 * when the origin has its text (the body as the client sent it) and that text already says what
 * the attempt sends about streaming (`"stream": true` for a stream; no flag, or false, otherwise).
 * Undefined when that does not hold, or the model is not certain (`withModelReplaced`): the
 * provider serializes the body. The dialect's own conditions (fields it takes out) are the
 * provider's to check first.
 */
export function originTextFor(origin: RequestOrigin, upstream: string, stream: boolean): string | undefined {
  const { body, text } = origin;
  const flag = body.stream;
  if (text === undefined || typeof body.model !== 'string' || (stream ? flag !== true : flag !== undefined && flag !== false)) return undefined;
  return withModelReplaced(text, body.model, upstream);
}
