/**
 * A client's JSON body sent on with another model: the text as it came, with its `"model"`
 * value replaced, instead of the parsed body serialised again. Only where the replacement is
 * certain: the text holds exactly one `"model": "<string>"` member (any white space), and its
 * value is the client's model as JSON writes it. A string inside the JSON cannot contain such a
 * member unescaped, so one is the top-level field. Any other (a nested one, a second top-level
 * `"model"` key a vendor's parser might read instead of ours: routing and budgets went by the
 * one JSON.parse kept) leaves the caller to serialise as before.
 *
 * When the gateway kept the client's bytes (`RequestOrigin.bytes`), the edits are made to them
 * too (`SplicedBody.bodyBytes`), so the body is never encoded again: a coding agent's turn is 100 KB
 * and more, and encoding its text took 56 µs where copying its bytes takes 11.
 */
import type { RequestOrigin } from './request-origin.js';

/** A `"model"` member with a string value, the value captured as written. */
const MODEL_MEMBER = /"model"\s*:\s*("(?:[^"\\]|\\.)*")/g;

/** Text put in place of `text.slice(start, end)` (`end === start`: inserted). */
export interface BodyEdit {
  start: number;
  end: number;
  text: string;
}

/** A body to send: its text, and the same as UTF-8 when it was made from the client's bytes (`ProviderRequest.bodyBytes`). */
export interface SplicedBody {
  body: string;
  bodyBytes?: Uint8Array;
}

/** The edit that makes `text`'s one `"model": "<model>"` say `"model":"<upstream>"`, or undefined when that is not certain. */
export function modelEditIn(text: string, model: string, upstream: string): BodyEdit | undefined {
  MODEL_MEMBER.lastIndex = 0;
  const first = MODEL_MEMBER.exec(text);
  if (!first || first[1] !== JSON.stringify(model)) return undefined;
  const end = MODEL_MEMBER.lastIndex;
  if (MODEL_MEMBER.exec(text) !== null) return undefined;
  return { start: first.index, end, text: `"model":${JSON.stringify(upstream)}` };
}

/** `text` with its one `"model": "<model>"` made `"model":"<upstream>"`, or undefined when that is not certain. */
export function withModelReplaced(text: string, model: string, upstream: string): string | undefined {
  const edit = modelEditIn(text, model, upstream);
  return edit && `${text.slice(0, edit.start)}${edit.text}${text.slice(edit.end)}`;
}

/**
 * `text` with the edits made (in order, none overlapping), and `bytes` (its UTF-8, when given)
 * with the same edits: the bytes between edits are copied, never encoded again. An edit's byte
 * offset is counted from the nearer end of the text (a model near the start, a field added
 * before the closing brace). An edit that changes nothing (the model the client already names,
 * written as it wrote it) is left out: with none left, the client's text and bytes go as they are.
 */
export function splicedBody(text: string, bytes: Uint8Array | undefined, allEdits: readonly BodyEdit[]): SplicedBody {
  const edits = allEdits.filter((edit) => text.slice(edit.start, edit.end) !== edit.text);
  if (edits.length === 0) return bytes ? { body: text, bodyBytes: bytes } : { body: text };
  let body = '';
  let from = 0;
  for (const edit of edits) {
    body += text.slice(from, edit.start) + edit.text;
    from = edit.end;
  }
  body += text.slice(from);
  if (bytes === undefined) return { body };
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const inserted = edits.map((edit) => Buffer.byteLength(edit.text));
  const ranges = edits.map((edit) => [byteOffset(text, source.length, edit.start), byteOffset(text, source.length, edit.end)] as const);
  let size = source.length;
  for (let i = 0; i < edits.length; i++) size += inserted[i]! - (ranges[i]![1] - ranges[i]![0]);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let copied = 0;
  for (let i = 0; i < edits.length; i++) {
    at += source.copy(out, at, copied, ranges[i]![0]);
    at += out.write(edits[i]!.text, at);
    copied = ranges[i]![1];
  }
  source.copy(out, at, copied);
  return { body, bodyBytes: out };
}

/** The byte offset of `text`'s character `at` in its UTF-8 (`size` bytes), counted from the nearer end. */
function byteOffset(text: string, size: number, at: number): number {
  return at <= text.length - at ? Buffer.byteLength(text.slice(0, at)) : size - Buffer.byteLength(text.slice(at));
}

/**
 * The client's own body for an attempt to a vendor of its dialect, the upstream model spliced in:
 * when the origin has its text (the body as the client sent it) and that text already says what
 * the attempt sends about streaming (`"stream": true` for a stream; no flag, or false, otherwise).
 * Undefined when that does not hold, or the model is not certain (`modelEditIn`): the provider
 * serializes the body. The dialect's own conditions (fields it takes out) are the provider's to
 * check first.
 */
export function originBodyFor(origin: RequestOrigin, upstream: string, stream: boolean): SplicedBody | undefined {
  return ownBodyOf(origin, upstream, stream, origin.bytes);
}

/** `originBodyFor`'s text alone (no bytes are copied). */
export function originTextFor(origin: RequestOrigin, upstream: string, stream: boolean): string | undefined {
  return ownBodyOf(origin, upstream, stream, undefined)?.body;
}

function ownBodyOf(origin: RequestOrigin, upstream: string, stream: boolean, bytes: Uint8Array | undefined): SplicedBody | undefined {
  const { body, text } = origin;
  const flag = body.stream;
  if (text === undefined || typeof body.model !== 'string' || (stream ? flag !== true : flag !== undefined && flag !== false)) return undefined;
  const edit = modelEditIn(text, body.model, upstream);
  return edit && splicedBody(text, bytes, [edit]);
}
