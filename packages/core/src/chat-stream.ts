/** What `pipeline.stream()` resolves to once the stream has committed to a candidate. */
import { ResponseAccumulator } from './aggregate.js';
import { SwitchyardError } from './errors.js';
import type { ChatResponse, StreamPart } from './types.js';

export interface StreamInfo {
  endpoint: string;
  deployment: string;
  provider: string;
  /** Attempts made before the commit point (final count is on the collected response). */
  attempts: number;
  model: string;
  degraded?: string;
  stale?: boolean;
  cached?: boolean;
  latencyMs?: number;
}

export class ChatStream implements AsyncIterable<StreamPart> {
  private consumed = false;

  constructor(
    private readonly body: AsyncIterator<StreamPart>,
    /** Who answered. */
    readonly info: StreamInfo,
    /** Aborts the upstream call and releases the request; safe to call more than once. */
    private readonly onCancel: () => Promise<void> | void = () => undefined,
  ) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamPart> {
    if (this.consumed) throw new SwitchyardError('invalid-request', 'a stream can be read only once');
    this.consumed = true;
    let completed = false;
    try {
      for (;;) {
        const next = await this.body.next();
        if (next.done) break;
        yield next.value;
      }
      completed = true;
    } finally {
      if (!completed) await this.cancel();
    }
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
