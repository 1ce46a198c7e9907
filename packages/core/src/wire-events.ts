/**
 * A vendor's stream events, kept beside the unified parts decoded from them. When the request
 * came in the dialect the vendor streams in (request-origin.ts, a decoder's `wireFormat`), the
 * core keeps each event's SSE text with the first part it produced; events that produced no part
 * (`ping`, `content_block_stop`) travel with the next part that does; an event's other parts get
 * `''`. A decoder may refuse an event it had to normalise (`forwardable`). A gateway of that dialect
 * writes the vendor's text instead of encoding the part again, and encodes only parts that have
 * none (a continuation on another vendor, a cached answer). Events after the last part (the
 * closing `message_stop`, `[DONE]`) are dropped: the gateway's encoder writes its own closing,
 * which is how the stream has to end in any case.
 *
 * Kept with the part object (hidden-slot.ts): a plugin that rewrites a part makes a new one, which has no text.
 */

import { hiddenSlot } from './hidden-slot.js';
import type { StreamPart } from './types.js';

const texts = hiddenSlot<string>('switchyard.wireText');

export function keepWireText(part: object, text: string): void {
  texts.set(part, text);
}

/**
 * The vendor's SSE text for this part (and for the part-less events before it), in the
 * request's own dialect; `''` for a part whose event's text went with an earlier part of the
 * same event; undefined when the part must be encoded.
 */
export function wireTextOf(part: object): string | undefined {
  return part instanceof UnreadEvents ? UnreadEvents.textOf(part) : texts.get(part);
}

/**
 * A run of unread events as a part of its own class, its text in a field the class declares: a
 * relay makes one per chunk, and stamping two hidden slots on a plain object was a megamorphic
 * definition each (1.6 % of a long answer's CPU). A plugin's copy of it is a plain object, with
 * no text, as with any other part.
 */
class UnreadEvents {
  readonly type = 'response-metadata' as const;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  static textOf(part: UnreadEvents): string {
    return part.#text;
  }
}

/**
 * A run of vendor events forwarded undecoded (a lazy pass-through after its commit point,
 * kept-stream.ts): a part that adds nothing to the answer (`response-metadata` without fields),
 * with their text. An encoder that learns from the events it forwards reads them from the text.
 */
export function unreadEvents(text: string): StreamPart {
  return new UnreadEvents(text);
}

/** Whether `part` stands for events forwarded undecoded (`unreadEvents`). */
export function isUnreadEvents(part: object): boolean {
  return part instanceof UnreadEvents;
}
