/**
 * The text of one member's value in a JSON object's text, found without parsing it: the stored
 * copy of a passed-through answer is the `response` of the vendor's terminal event, which the
 * client already got as text (serializing the parsed object again cost more than the whole
 * scan). Meant for text JSON.parse accepted: on anything else it answers undefined, never a
 * wrong slice it could notice (a scan cannot validate numbers or literals; the caller's text was
 * parsed already).
 */

import { startsAt } from '@switchyard/core/wire';

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const OPEN_BRACE = 123; // {
const CLOSE_BRACE = 125; // }
const OPEN_BRACKET = 91; // [
const CLOSE_BRACKET = 93; // ]
const COMMA = 44; // ,
const COLON = 58; // :

const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9;

function skipSpace(text: string, at: number, end: number): number {
  while (at < end && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** The index after the string whose opening quote is at `at`; -1 when it does not close before `end`. */
function afterString(text: string, at: number, end: number): number {
  for (let quote = text.indexOf('"', at + 1); quote >= 0 && quote < end; quote = text.indexOf('"', quote + 1)) {
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
  }
  return -1;
}

/** The index after the value that starts at `at` (no space before it); -1 when it does not end before `end`. */
function afterValue(text: string, at: number, end: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return afterString(text, at, end);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number or a literal: up to the next delimiter.
    while (at < end) {
      const code = text.charCodeAt(at);
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
      at++;
    }
    return at;
  }
  let depth = 0;
  while (at < end) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = afterString(text, at, end);
      if (at < 0) return -1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return at + 1;
    }
    at++;
  }
  return -1;
}

/**
 * The value text of the member `key` of the object that is `text.slice(start, end)` (spaces
 * around it allowed); undefined when it is no object or has no such member. A key is compared as
 * JSON.stringify writes it: one spelled with other escapes (`"respons\u0065"`) is not found.
 */
export function memberText(text: string, key: string, start = 0, end = text.length): string | undefined {
  const wanted = JSON.stringify(key);
  // The last of duplicate keys, as JSON.parse reads them.
  let found: string | undefined;
  let at = skipSpace(text, start, end);
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined;
  at = skipSpace(text, at + 1, end);
  while (at < end && text.charCodeAt(at) === QUOTE) {
    const keyEnd = afterString(text, at, end);
    if (keyEnd < 0) return undefined;
    const matches = keyEnd - at === wanted.length && startsAt(text, wanted, at);
    at = skipSpace(text, keyEnd, end);
    if (text.charCodeAt(at) !== COLON) return undefined;
    const valueStart = skipSpace(text, at + 1, end);
    const valueEnd = afterValue(text, valueStart, end);
    if (valueEnd < 0 || valueEnd === valueStart) return undefined;
    if (matches) found = text.slice(valueStart, valueEnd);
    at = skipSpace(text, valueEnd, end);
    if (text.charCodeAt(at) === CLOSE_BRACE) return found;
    if (text.charCodeAt(at) !== COMMA) return undefined;
    at = skipSpace(text, at + 1, end);
  }
  return undefined;
}
