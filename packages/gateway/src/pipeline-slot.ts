/**
 * Hot reload: the current pipeline is swapped atomically; every request holds a lease on the
 * pipeline it started with, and a replaced pipeline is closed once its last lease is released.
 */
import type { Pipeline } from '@switchyard/core';

interface Generation {
  pipeline: Pipeline;
  leases: number;
  retired: boolean;
  closePipeline: boolean;
  detach: () => void;
  closed?: Promise<void>;
}

export interface Lease {
  readonly pipeline: Pipeline;
  release(): void;
}

export class PipelineSlot {
  private current: Generation;
  private readonly retiring = new Set<Generation>();

  constructor(
    pipeline: Pipeline,
    private readonly attach: (pipeline: Pipeline) => () => void,
    private readonly onCloseError: (error: unknown) => void,
  ) {
    this.current = this.generation(pipeline, true);
  }

  get pipeline(): Pipeline {
    return this.current.pipeline;
  }

  acquire(): Lease {
    const generation = this.current;
    generation.leases++;
    let released = false;
    return {
      pipeline: generation.pipeline,
      release: () => {
        if (released) return;
        released = true;
        generation.leases--;
        if (generation.retired && generation.leases === 0) this.finish(generation);
      },
    };
  }

  /** Makes `next` current; the old pipeline finishes its requests, then is closed (unless told not to). */
  swap(next: Pipeline, closePrevious = true): void {
    const old = this.current;
    this.current = this.generation(next, true);
    old.closePipeline = closePrevious;
    this.retire(old);
  }

  /** Retires the current pipeline too and waits until every pipeline is closed. */
  async closeAll(): Promise<void> {
    this.retire(this.current);
    await Promise.all([...this.retiring].map((g) => g.closed ?? this.finish(g)));
  }

  private generation(pipeline: Pipeline, closePipeline: boolean): Generation {
    return { pipeline, leases: 0, retired: false, closePipeline, detach: this.attach(pipeline) };
  }

  private retire(generation: Generation): void {
    if (generation.retired) return;
    generation.retired = true;
    this.retiring.add(generation);
    if (generation.leases === 0) this.finish(generation);
  }

  private finish(generation: Generation): Promise<void> {
    generation.closed ??= (async () => {
      generation.detach();
      try {
        if (generation.closePipeline) await generation.pipeline.close();
      } catch (error) {
        this.onCloseError(error);
      } finally {
        this.retiring.delete(generation);
      }
    })();
    return generation.closed;
  }
}
