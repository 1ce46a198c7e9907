/**
 * Stream parts in batches. A vendor's chunk holds several SSE events, each a part or more: the
 * core decodes a chunk at once and passes its parts on together, so a stream costs a promise
 * and a generator step per chunk instead of several per part. `PartBatches` keeps the contract
 * of an `AsyncIterator<StreamPart>` (what plugins and `ChatStream` consumers see) and adds
 * `nextBatch()`, which hands out every part it has; `nextBatchOf()` reads any iterator that way
 * (a plugin's iterator without batches gives batches of one).
 */
import type { StreamPart } from './types.js';

export type PartBatch = readonly StreamPart[];

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
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

/** Parts read one by one or a batch at a time from a source of batches (an async generator of arrays). */
export class PartBatches implements BatchedPartIterator {
  private batch: PartBatch = EMPTY;
  private at = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<PartBatch, void, undefined>) {}

  next(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.at < this.batch.length) return Promise.resolve({ done: false, value: this.batch[this.at++]! });
    return this.fill(this.onePart);
  }

  nextBatch(): Promise<IteratorResult<PartBatch, undefined>> {
    if (this.at < this.batch.length) return Promise.resolve({ done: false, value: this.take() });
    return this.fill(this.wholeBatch);
  }

  async return(): Promise<IteratorResult<StreamPart, undefined>> {
    this.batch = EMPTY;
    this.at = 0;
    if (!this.ended) {
      this.ended = true;
      await this.source.return?.(undefined);
    }
    return DONE;
  }

  /** What is left of the current batch, handed out whole. */
  private take(): PartBatch {
    const rest = this.at === 0 ? this.batch : this.batch.slice(this.at);
    this.batch = EMPTY;
    this.at = 0;
    return rest;
  }

  private readonly onePart = (): IteratorResult<StreamPart, undefined> => ({ done: false, value: this.batch[this.at++]! });
  private readonly wholeBatch = (): IteratorResult<PartBatch, undefined> => ({ done: false, value: this.take() });

  /**
   * Reads the source until a non-empty batch, then answers with `out`; done once the source is.
   * One `then` per batch read: an async function here cost a stream three promises per chunk at
   * each of its two layers (the provider's parts and the committed stream's).
   */
  private fill<T>(out: () => IteratorResult<T, undefined>): Promise<IteratorResult<T, undefined>> {
    if (this.ended) return Promise.resolve(DONE);
    let read: Promise<IteratorResult<PartBatch, void>>;
    try {
      read = this.source.next();
    } catch (error) {
      // As an async function would: a source that throws instead of rejecting still rejects.
      return Promise.reject(error);
    }
    return read.then((next): IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>> => {
      if (next.done) {
        this.ended = true;
        return DONE;
      }
      if (next.value.length === 0) return this.fill(out);
      this.batch = next.value;
      this.at = 0;
      return out();
    });
  }
}

/** A finished list of parts (a cached or degraded answer as a stream), as one batch. */
export function partsOnce(parts: PartBatch): PartBatches {
  return new PartBatches((async function* () {
    yield parts;
  })());
}
