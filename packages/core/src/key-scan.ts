/**
 * Whether an event of a chunk holds one of the keys a stream decoder reads after the commit point,
 * for decoders whose test is a regular expression (`StreamDecoder.readAfterCommitIn`). The chunk is
 * searched once from where its events are asked about, not once per event: the next match is
 * remembered, and an event holds a key when that match falls inside it. Most events after the
 * commit point hold none; six scans per event were 3–4 % of a streamed answer's CPU.
 */
const globalVersions = new WeakMap<RegExp, RegExp>();

function globalVersionOf(pattern: RegExp): RegExp {
  let global = globalVersions.get(pattern);
  if (!global) globalVersions.set(pattern, (global = new RegExp(pattern.source, `${pattern.flags}g`)));
  return global;
}

export class KeyScan {
  private readonly pattern: RegExp;
  private scanned: string | undefined;
  /** Where the next match is in `scanned` (at or after the last search's start); Infinity: none. */
  private matchAt = Number.POSITIVE_INFINITY;
  /** Where the last event asked about started: one that starts before it begins another pass. */
  private askedAt = 0;

  /**
   * `pattern`: what an event to read holds. A global one is used as it is (decoders of every
   * stream share it: `within` sets its `lastIndex` before each search); another is made global
   * once per pattern, not once per stream (compiling one was 0.4 % of a stream's CPU).
   */
  constructor(pattern: RegExp) {
    this.pattern = pattern.global ? pattern : globalVersionOf(pattern);
  }

  /** Whether `text.slice(start, end)` (events are asked about in order) holds a match. */
  within(text: string, start: number, end: number): boolean {
    // Another chunk (or the same text asked from an earlier event) is searched anew.
    if (this.matchAt < start || start < this.askedAt || text !== this.scanned) {
      this.pattern.lastIndex = start;
      const found = this.pattern.exec(text);
      this.matchAt = found ? found.index : Number.POSITIVE_INFINITY;
      this.scanned = text;
    }
    this.askedAt = start;
    return this.matchAt < end;
  }
}
