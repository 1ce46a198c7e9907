/**
 * Per-key conditions that take a candidate out of rotation for a while, kept in the StateStore
 * with a TTL so they lift on their own: resting after a 429 (per deployment and key), parked
 * after an out-of-balance or rejected-key answer (the key on every deployment), paced after
 * the vendor's remaining-quota headers ran low.
 */
import type { Candidate, Pipeline } from '@switchyard/core';
import { readManyNow } from '@switchyard/core/internal';

export type KeyCondition = 'parked' | 'resting' | 'paced';

export interface KeyState {
  condition: KeyCondition;
  until: number;
  reason: string;
}

/** Worst first: the first condition a candidate is in is the one that counts. */
const CONDITIONS: readonly KeyCondition[] = ['parked', 'resting', 'paced'];

export class KeyStates {
  /** A candidate's three keys, made once: the same strings every request, so the store hashes each once. */
  private readonly keysOf = new WeakMap<Candidate, string[]>();

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

  /**
   * The condition each candidate is in now, worst first (undefined: none), in one read of the
   * store (one MGET on Redis, where a read per condition and candidate was a round trip each);
   * answered at once by a store in this process.
   */
  statesOf(candidates: readonly Candidate[]): (KeyState | undefined)[] | Promise<(KeyState | undefined)[]> {
    const keys: string[] = [];
    for (const candidate of candidates) {
      let own = this.keysOf.get(candidate);
      if (!own) this.keysOf.set(candidate, (own = CONDITIONS.map((condition) => this.keyOf(condition, candidate))));
      keys.push(...own);
    }
    const read = readManyNow<KeyState>(this.pipeline.store, keys);
    return Array.isArray(read) ? worstOf(read, candidates.length) : read.then((states) => worstOf(states, candidates.length));
  }

  /** Same endpoint and key index: the same secret. */
  static sameKey(a: Candidate, b: Candidate): boolean {
    return a.endpoint.name === b.endpoint.name && a.keyIndex === b.keyIndex;
  }
}

/** Per candidate, the first of its states (one per condition, in `CONDITIONS` order). */
function worstOf(states: readonly (KeyState | undefined)[], candidates: number): (KeyState | undefined)[] {
  const worst: (KeyState | undefined)[] = [];
  for (let i = 0; i < candidates; i++) {
    let state: KeyState | undefined;
    for (let c = 0; c < CONDITIONS.length && !state; c++) state = states[i * CONDITIONS.length + c];
    worst.push(state);
  }
  return worst;
}
