/**
 * A client's JSON body sent on with another model: the text as it came, with its `"model"`
 * value replaced, instead of the parsed body serialised again. Only where the replacement is
 * certain: the text holds exactly one `"model": "<string>"` member (any white space), and its
 * value is the client's model as JSON writes it. A string inside the JSON cannot contain such a
 * member unescaped, so one is the top-level field. Any other (a nested one, a second top-level
 * `"model"` key a vendor's parser might read instead of ours: routing and budgets went by the
 * one JSON.parse kept) leaves the caller to serialise as before.
 */
import type { RequestOrigin } from './request-origin.js';

/** A `"model"` member with a string value, the value captured as written. */
const MODEL_MEMBER = /"model"\s*:\s*("(?:[^"\\]|\\.)*")/g;

/** `text` with its one `"model": "<model>"` made `"model":"<upstream>"`, or undefined when that is not certain. */
export function withModelReplaced(text: string, model: string, upstream: string): string | undefined {
  MODEL_MEMBER.lastIndex = 0;
  const first = MODEL_MEMBER.exec(text);
  if (!first || first[1] !== JSON.stringify(model)) return undefined;
  if (MODEL_MEMBER.exec(text) !== null) return undefined;
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
