/**
 * A value's JSON text, handed over by code that had to serialize the value anyway (to count its
 * bytes): a record store that writes values as JSON lines (journal-records.ts) takes it instead
 * of serializing the value a second time. Taken once: the text is not kept beside a value that
 * lives on in a store (it would double its memory). Only for a value nobody changes after
 * handing it over, and only exact text: `JSON.stringify(value)` as it would be written now.
 */
import { hiddenSlot } from './hidden-slot.js';

const texts = hiddenSlot<string | undefined>('switchyard.jsonText');

export function keepJsonText(value: object, text: string): void {
  texts.set(value, text);
}

/** The text `keepJsonText` handed over with `value`, if any, and forgets it. */
export function takeJsonText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const text = texts.get(value);
  if (text !== undefined) texts.set(value, undefined);
  return text;
}
