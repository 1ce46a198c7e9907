/**
 * A value a writer already holds as JSON text (a stored Responses answer: the vendor's own text
 * of it, spliced into its record), handed to a StateStore as it is. A store that writes values
 * out as JSON writes the text itself (`jsonTextOf`) instead of serializing a string of JSON
 * again: as a string, every quote in it was escaped on the way out (1.8 µs for the journal's line
 * of a 1.3 KB answer) and read back as a string to parse a second time. A store that does not
 * know the class still writes it right: `toJSON` gives the value the text stands for. What a
 * store reads back is that value, parsed (or a JsonText again, where the store kept the text: the
 * journal); readers take either.
 */
export class JsonText {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** `value` as JSON text: a JsonText's own text, anything else serialized (undefined as `JSON.stringify` gives it). */
export function jsonTextOf(value: unknown): string | undefined {
  return value instanceof JsonText ? value.json : JSON.stringify(value);
}
