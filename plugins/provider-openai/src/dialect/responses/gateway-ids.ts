/**
 * The client always sees the gateway's response ids. A vendor's Responses answer passed through
 * (its JSON body, its stream's lifecycle events) names the vendor's own response id: it is
 * replaced by one the gateway makes, which is also the id the answer is stored under. The
 * vendor's id stays beside the stored turn (`StoredResponse.vendor`), with the deployment that
 * issued it: only that deployment could ever be asked about it.
 */
import { newId } from './ids.js';

/** The vendor's id and where it came from, kept beside a stored turn. */
export interface VendorResponse {
  id: string;
  /** The deployment that issued it (`endpoint/model`). */
  deployment: string;
}

const LEADING_ID = /^\s*\{\s*"id"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** The top-level `id` of a response body's JSON text (OpenAI writes it first; anything else is parsed). */
export function responseIdOf(text: string): string | undefined {
  const lead = LEADING_ID.exec(text);
  if (lead) return JSON.parse(lead[1]!) as string;
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A lifecycle event's response id as OpenAI writes the event (`{"type":…,"sequence_number":N,
 * "response":{"id":"…"`), read without parsing the event: every character before the id is one
 * of those keys, so the match is the top-level response's own id and never one inside it.
 */
const LEADING_RESPONSE_ID = /^(?:event:[^\n]*\n)?data: ?\{\s*"type"\s*:\s*"[^"\\]*"\s*,\s*(?:"sequence_number"\s*:\s*\d+\s*,\s*)?"response"\s*:\s*\{\s*"id"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** The response id of one SSE event carrying a response object, when it is written as OpenAI writes it; undefined for any other shape (the caller parses those). */
export function leadingResponseIdOf(event: string): string | undefined {
  const lead = LEADING_RESPONSE_ID.exec(event);
  return lead ? (JSON.parse(lead[1]!) as string) : undefined;
}

/** `text` with every `"<from>"` string replaced by `"<to>"` (the ids are opaque, so only whole JSON strings match). */
export function withIdReplaced(text: string, from: string, to: string): string {
  return idReplacer(from, to)(text);
}

/** `withIdReplaced` for one pair of ids, its two JSON strings made once (a stream replaces in several events). */
export function idReplacer(from: string, to: string): (text: string) => string {
  const search = JSON.stringify(from);
  const quoted = JSON.stringify(to);
  // A `$` in a replacement would be read as a pattern (`$&`, `$1`): doubled, it is itself.
  const replacement = quoted.includes('$') ? quoted.replaceAll('$', '$$$$') : quoted;
  return (text) => text.replaceAll(search, replacement);
}

/** A vendor's JSON answer with the gateway's id: the text the client gets, and the vendor's id. */
export function withGatewayId(text: string): { text: string; vendorId?: string; id?: string } {
  const vendorId = responseIdOf(text);
  if (vendorId === undefined) return { text };
  const id = newId('resp');
  return { text: withIdReplaced(text, vendorId, id), vendorId, id };
}

/**
 * A vendor's response object beside its stored text (which has every id replaced already): a
 * copy with the gateway's id as its own when its own is the vendor's, else undefined. The
 * store reads only the object's own id and its items' ids; the text is what it keeps.
 */
export function withOwnIdReplaced<T extends { id?: unknown }>(value: T, from: string, to: string): T | undefined {
  return value.id === from ? Object.assign({}, value, { id: to }) : undefined;
}

/**
 * `withIdReplaced` on parsed JSON: `value` with every string equal to `from` replaced by `to`,
 * copied only along the paths that change (the rest is shared). Object keys are the schema's
 * names, never ids, and are left alone.
 */
export function withIdReplacedIn<T>(value: T, from: string, to: string): T {
  if (value === from) return to as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = withIdReplacedIn(value[i] as unknown, from, to);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const next = withIdReplacedIn(record[key], from, to);
    if (next === record[key]) continue;
    copy ??= { ...record };
    // A `__proto__` key (JSON.parse makes it an own property) is written as one, never as the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    else copy[key] = next;
  }
  return (copy ?? value) as T;
}
