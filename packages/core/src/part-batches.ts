/**
 * Stream parts in batches. A vendor's chunk holds several SSE events, each a part or more: the
 * core decodes a chunk at once and passes its parts on together, so a stream costs a promise
 * per chunk instead of several per part. A `BatchReader` keeps the contract of an
 * `AsyncIterator<StreamPart>` (what plugins and `ChatStream` consumers see) and adds
 * `nextBatch()`, which hands out every part it has; `nextBatchOf()` reads any iterator that way
 * (a plugin's iterator without batches gives batches of one).
 */
import type { StreamPart } from './types.js';
import { DONE } from './iterator-done.js';

export type PartBatch = readonly StreamPart[];

const EMPTY: PartBatch = Object.freeze([]);

/** An async iterator of parts that can also give every part it holds at once. */
export interface BatchedPartIterator extends AsyncIterator<StreamPart> {
  /** The next parts (at least one), or done. */
  nextBatch(): Promise<IteratorResult<PartBatch, undefined>>;
}

export function isBatched(iterator: AsyncIterator<StreamPart>): iterator is BatchedPartIterator {
  return typeof (iterator as Partial<BatchedPartIterator>).nextBatch === 'function';
}

/** The next batch of any part iterator: its own batches, or one part at a time. */
export function nextBatchOf(iterator: AsyncIterator<StreamPart>): Promise<IteratorResult<PartBatch, undefined>> {
  if (isBatched(iterator)) return iterator.nextBatch();
  return iterator.next().then((next) => (next.done ? DONE : { done: false, value: [next.value] }));
}

/**
 * Parts read one by one or a batch at a time from `read()`, which gives non-empty batches. A
 * relay's read of a batch is the subclass's own promise, with no layer of its own: a stream's
 * layers (the decoder, the committed stream) are such readers, and each async generator between
 * them cost several promises and microtask turns per chunk.
 */
export abstract class BatchReader implements BatchedPartIterator {
  private batch: PartBatch = EMPTY;
  private at = 0;

  /** The next non-empty batch, or done. */
  protected abstract read(): Promise<IteratorResult<PartBatch, undefined>>;
  /** Stops reading and releases what the reader holds; called once, by `return()`. */
  protected abstract close(): Promise<void> | void;

  next(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.at < this.batch.length) return Promise.resolve({ done: false, value: this.batch[this.at++]! });
    return this.read().then(this.onePart);
  }

  nextBatch(): Promise<IteratorResult<PartBatch, undefined>> {
    if (this.at < this.batch.length) return Promise.resolve({ done: false, value: this.take() });
    return this.read();
  }

  /** Parts taken with `nextBatch()` that the reader did not use (a commit point inside a batch): the next reads hand them out first. */
  putBack(rest: PartBatch): void {
    if (rest.length === 0) return;
    this.batch = this.at < this.batch.length ? rest.concat(this.batch.slice(this.at)) : rest;
    this.at = 0;
  }

  async return(): Promise<IteratorResult<StreamPart, undefined>> {
    this.batch = EMPTY;
    this.at = 0;
    await this.close();
    return DONE;
  }

  /** What is left of the current batch, handed out whole. */
  private take(): PartBatch {
    const rest = this.at === 0 ? this.batch : this.batch.slice(this.at);
    this.batch = EMPTY;
    this.at = 0;
    return rest;
  }

  private readonly onePart = (next: IteratorResult<PartBatch, undefined>): IteratorResult<StreamPart, undefined> => {
    if (next.done) return DONE;
    this.batch = next.value;
    this.at = 1;
    return { done: false, value: next.value[0]! };
  };
}

/** Parts from a source of batches (an async generator of arrays; empty ones are skipped). */
export class PartBatches extends BatchReader {
  private ended = false;

  constructor(private readonly source: AsyncIterator<PartBatch, void, undefined>) {
    super();
  }

  protected async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.source.return?.(undefined);
  }

  /** Reads the source until a non-empty batch; done once the source is. One `then` per batch read. */
  protected read(): Promise<IteratorResult<PartBatch, undefined>> {
    if (this.ended) return Promise.resolve(DONE);
    let read: Promise<IteratorResult<PartBatch, void>>;
    try {
      read = this.source.next();
    } catch (error) {
      // As an async function would: a source that throws instead of rejecting still rejects.
      return Promise.reject(error);
    }
    return read.then((next): IteratorResult<PartBatch, undefined> | Promise<IteratorResult<PartBatch, undefined>> => {
      if (next.done) {
        this.ended = true;
        return DONE;
      }
      if (next.value.length === 0) return this.read();
      return { done: false, value: next.value };
    });
  }
}

/** A finished list of parts (a cached or degraded answer as a stream), as one batch. */
export function partsOnce(parts: PartBatch): PartBatches {
  return new PartBatches((async function* () {
    yield parts;
  })());
}
