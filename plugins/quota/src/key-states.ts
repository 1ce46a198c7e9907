/**
 * Per-key conditions that take a candidate out of rotation for a while, kept in the StateStore
 * with a TTL so they lift on their own: resting after a 429 (per deployment and key), parked
 * after an out-of-balance or rejected-key answer (the key on every deployment), paced after
 * the vendor's remaining-quota headers ran low.
 */
import type { Candidate, Pipeline } from '@switchyard/core';

export type KeyCondition = 'parked' | 'resting' | 'paced';

export interface KeyState {
  condition: KeyCondition;
  until: number;
  reason: string;
}

export class KeyStates {
  constructor(
    private readonly pipeline: Pipeline,
    private readonly prefix: string,
  ) {}

  private keyOf(condition: KeyCondition, candidate: Candidate): string {
    // A parked key is unusable on every deployment of its endpoint; rest and pace are per deployment.
    const subject = condition === 'parked' ? `${candidate.endpoint.name}#${candidate.keyIndex}` : candidate.id;
    return `${this.prefix}:${condition}:${subject}`;
  }

  async set(condition: KeyCondition, candidate: Candidate, ms: number, reason: string): Promise<void> {
    const until = this.pipeline.clock.now() + ms;
    const state: KeyState = { condition, until, reason };
    await this.pipeline.store.set(this.keyOf(condition, candidate), state, ms);
    this.pipeline.events.emit('key:state', { endpoint: candidate.endpoint.name, keyId: candidate.keyId, deployment: candidate.deploymentId, condition, until, reason });
  }

  /** The condition that keeps this candidate out now, worst first. */
  async get(candidate: Candidate): Promise<KeyState | undefined> {
    for (const condition of ['parked', 'resting', 'paced'] as const) {
      const state = await this.pipeline.store.get<KeyState>(this.keyOf(condition, candidate));
      if (state) return state;
    }
    return undefined;
  }

  /** Same endpoint and key index: the same secret. */
  static sameKey(a: Candidate, b: Candidate): boolean {
    return a.endpoint.name === b.endpoint.name && a.keyIndex === b.keyIndex;
  }
}
