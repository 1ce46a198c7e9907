/**
 * A vendor answer's own text, kept beside the unified response it was parsed into. A gateway
 * that speaks the same wire format sends it on as it came instead of encoding the unified
 * response back (the same-format fast path): no second serialisation, and fields the unified
 * shape does not model reach the client too. A provider keeps the text only when it is already
 * what the encoder would write for that format (see provider-openai's `forwardable`).
 *
 * Kept with the response object (hidden-slot.ts): a plugin that changes an answer returns a new object (answers
 * are immutable by contract), which has no wire body, so a changed answer is always re-encoded.
 */
import { hiddenSlot } from './hidden-slot.js';

export interface WireBody {
  /** The wire format (wire-formats.ts), e.g. `openai.chat.completion`. */
  readonly format: string;
  readonly text: string;
  /** The text as the provider parsed it, when it parsed it whole: a dialect that needs the vendor's object reads it (never changes it) instead of parsing the text again. */
  readonly json?: unknown;
}

const bodies = hiddenSlot<WireBody>('switchyard.wireBody');

/** Keeps a vendor's text with the response parsed from it. */
export function keepWireBody(response: object, body: WireBody): void {
  bodies.set(response, body);
}

/** The vendor's text of this response when it is in `format`, else undefined. */
export function wireBodyOf(response: object, format: string): string | undefined {
  const body = bodies.get(response);
  return body && body.format === format ? body.text : undefined;
}

/** The vendor's text of this response as its provider parsed it, when it is in `format` and was kept (`WireBody.json`); read only. */
export function wireJsonOf(response: object, format: string): unknown {
  const body = bodies.get(response);
  return body && body.format === format ? body.json : undefined;
}

/** The core copies a response to add its own info; the copy keeps the original's wire body. */
export function carryWireBody(from: object, to: object): void {
  const body = bodies.get(from);
  if (body) bodies.set(to, body);
}
