/** What `pipeline.stream()` resolves to once the stream has committed to a candidate. */
import { ResponseAccumulator } from './aggregate.js';
import { SwitchyardError } from './errors.js';
import type { ChatResponse, DroppedPart, StreamPart, TruncationInfo } from './types.js';
import { isBatched, nextBatchOf, type BatchedPartIterator, type PartBatch } from './part-batches.js';
import { DONE } from './iterator-done.js';

export interface StreamInfo {
  endpoint: string;
  deployment: string;
  provider: string;
  /** Attempts made before the commit point (final count is on the collected response). */
  attempts: number;
  model: string;
  /**
   * Set when the stream was cut after its commit point and continued on another deployment:
   * the deployment that continued it (the fields above name the one that started it).
   */
  continuedOn?: string;
  degraded?: string;
  stale?: boolean;
  cached?: boolean;
  latencyMs?: number;
  /** A backup deployment answered (see ResponseInfo.fallback). */
  fallback?: string;
  queued?: string;
  truncated?: TruncationInfo;
  /** What the answering deployment was sent without (ResponseInfo.dropped). */
  dropped?: readonly DroppedPart[];
  /** The deployment that held the conversation's prompt cache, when another answered (ResponseInfo.cacheLost). */
  cacheLost?: string;
}

export class ChatStream implements AsyncIterable<StreamPart> {
  private consumed = false;

  constructor(
    private readonly body: AsyncIterator<StreamPart>,
    /** Who answered. */
    readonly info: StreamInfo,
    /** Aborts the upstream call and releases the request; safe to call more than once. */
    private readonly onCancel: () => Promise<void> | void = () => undefined,
    /** Told when the reader is a relay (`batches()`): it writes the vendor's text, so a pass-through may skip decoding (kept-stream.ts). */
    private readonly onRelay?: () => void,
    /**
     * The body cancels the upstream and releases the request itself when it fails, and gives
     * only done once it ended (the core's committed stream): `batches()` hands its batches out
     * as they come, without a promise of its own per batch.
     */
    private readonly bodyEndsItself = false,
  ) {}

  /**
   * A thin iterator over the body, not an async generator: a generator layer costs a promise
   * and several microtask turns per part, and a stream has dozens of parts. Leaving early
   * (`break`, `return()`) or a failing body cancels the upstream call.
   */
  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return this.reader((body) => body.next());
  }

  /**
   * The parts as they arrive, a batch per vendor chunk (every part of a batch came at once).
   * What a relay that writes them out wants: one write per batch instead of one per part. A
   * relay of a pass-through writes the vendor's text (`wireTextOf`): after the commit point a
   * run of events it gets that way comes as one part that adds nothing to the answer, its
   * content not decoded (kept-stream.ts); iterate the parts to get every one decoded.
   * Like the parts, batches can be read only once, and leaving early cancels the upstream call.
   */
  batches(): AsyncIterable<PartBatch> {
    if (!this.consumed) this.onRelay?.();
    const { body } = this;
    return new Batches(() => (this.bodyEndsItself && isBatched(body) ? this.ownBatches(body) : this.reader(nextBatchOf)));
  }

  /** The stream's one reader takes it; any later one gets an iterator that rejects. */
  private secondReader(): AsyncIterator<never> | undefined {
    if (!this.consumed) {
      this.consumed = true;
      return undefined;
    }
    return rejectingIterator(new SwitchyardError('invalid-request', 'a stream can be read only once'));
  }

  private ownBatches(body: BatchedPartIterator): AsyncIterator<PartBatch> {
    const refused = this.secondReader();
    if (refused) return refused;
    return {
      next: () => body.nextBatch(),
      return: async () => {
        await this.cancel();
        return DONE;
      },
    };
  }

  private reader<T>(read: (body: AsyncIterator<StreamPart>) => Promise<IteratorResult<T, undefined>>): AsyncIterator<T> {
    const refused = this.secondReader();
    if (refused) return refused;
    let ended = false;
    const onNext = (next: IteratorResult<T, undefined>): IteratorResult<T, undefined> => {
      if (next.done) ended = true;
      return next;
    };
    const onFailure = async (error: unknown): Promise<never> => {
      ended = true;
      await this.cancel();
      throw error;
    };
    return {
      next: () => (ended ? Promise.resolve(DONE) : read(this.body).then(onNext, onFailure)),
      return: async () => {
        if (!ended) {
          ended = true;
          await this.cancel();
        }
        return DONE;
      },
    };
  }

  /** Stops the stream and aborts the upstream call. */
  async cancel(): Promise<void> {
    await this.onCancel();
    await this.body.return?.(undefined);
  }

  /** Reads the whole stream into one response; rejects with the stream's error part if it failed. */
  async collect(): Promise<ChatResponse> {
    const acc = new ResponseAccumulator();
    for await (const part of this) {
      if (part.type === 'error') throw part.error;
      acc.add(part);
    }
    const response = acc.toResponse();
    if (!response.model) response.model = this.info.model;
    response.switchyard = { ...this.info };
    return response;
  }
}

/** `batches()`'s iterable: a class, since a literal with a computed `[Symbol.asyncIterator]` key is built in V8's runtime (0.4–0.7 % of a streamed answer's CPU). */
class Batches implements AsyncIterable<PartBatch> {
  constructor(private readonly open: () => AsyncIterator<PartBatch>) {}

  [Symbol.asyncIterator](): AsyncIterator<PartBatch> {
    return this.open();
  }
}

function rejectingIterator<T>(error: Error): AsyncIterator<T> {
  return { next: () => Promise.reject(error), return: () => Promise.resolve(DONE) };
}
