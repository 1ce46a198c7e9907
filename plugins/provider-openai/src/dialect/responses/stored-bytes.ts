/**
 * How many bytes of stored Responses a gateway key holds, and all keys together, within the
 * TTL: counters in the pipeline's StateStore (shared and exact across gateways on Redis), one
 * per slice of the TTL (1/24 of it), each expiring a slice after the responses counted in it.
 * The bytes held now are the sum of the slices a TTL covers; a response is counted in the slice
 * it was stored in, so a slice's bytes leave the sum at most one slice after they expired.
 * Increment first, then compare, then roll back when over: concurrent stores never pass a cap
 * between them.
 */
import { SwitchyardError, type Clock, type StateStore } from '@switchyard/core';
import { formatDuration, readManyNow } from '@switchyard/core/internal';
import { RESPONSE_STORE_FULL } from './errors.js';

const SLICES = 24;
const PREFIX = 'switchyard:responses:bytes:';

export interface StoreCaps {
  /** Bytes one gateway key may hold (the config's own keys share one allowance). */
  maxBytesPerKey: number;
  /** Bytes every key together may hold. */
  maxBytes: number;
}

export class StoredBytes {
  private readonly sliceMs: number;

  constructor(
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly caps: StoreCaps,
  ) {
    this.sliceMs = Math.max(1, Math.ceil(ttlMs / SLICES));
  }

  /** The slice a response stored now is counted in (kept with it, so a delete takes its bytes back). */
  slice(): number {
    return Math.floor(this.clock.now() / this.sliceMs);
  }

  /**
   * What `owner` and everyone hold now: the two sums of a TTL's slices, in one read of the store
   * (one MGET on Redis, at once in memory). Each save reads them; 50 reads of their own, each
   * a new key string and a promise, were 11 µs of a stored answer.
   */
  private async held(owner: string | undefined, current: number): Promise<[mine: number, all: number]> {
    const mine = sliceKeys(scopeOf(owner), current);
    const all = sliceKeys('all', current);
    const read = readManyNow<number>(this.store, mine.concat(all));
    const values = Array.isArray(read) ? read : await read;
    let held = 0;
    for (let i = 0; i < mine.length; i++) held += values[i] ?? 0;
    let heldByAll = 0;
    for (let i = mine.length; i < values.length; i++) heldByAll += values[i] ?? 0;
    return [held, heldByAll];
  }

  /** Refuses before the call when what the key and everyone hold, plus `bytes`, is past a cap (nothing is counted). */
  async check(owner: string | undefined, bytes: number): Promise<void> {
    const [mine, all] = await this.held(owner, this.slice());
    this.refuseOver(owner, mine + bytes, all + bytes);
  }

  /** Counts `bytes` for `owner` in `slice`, or throws the coded 429 (rolled back) when that passes a cap. */
  async add(owner: string | undefined, bytes: number, slice: number): Promise<void> {
    await this.count(owner, bytes, slice);
    const [mine, all] = await this.held(owner, slice);
    try {
      this.refuseOver(owner, mine, all);
    } catch (error) {
      await this.remove(owner, bytes, slice);
      throw error;
    }
  }

  async remove(owner: string | undefined, bytes: number, slice: number): Promise<void> {
    await this.count(owner, -bytes, slice);
  }

  /** Adds `delta` bytes to `owner`'s count and everyone's in `slice`: the keys `held` reads. */
  private async count(owner: string | undefined, delta: number, slice: number): Promise<void> {
    const ttl = this.ttlMs + this.sliceMs;
    await Promise.all([this.store.increment(sliceKey(scopeOf(owner), slice), delta, ttl), this.store.increment(sliceKey('all', slice), delta, ttl)]);
  }

  private refuseOver(owner: string | undefined, mine: number, all: number): void {
    const cap = mine > this.caps.maxBytesPerKey ? `${this.caps.maxBytesPerKey} bytes per key (server.responseStore.maxBytesPerKey)` : all > this.caps.maxBytes ? `${this.caps.maxBytes} bytes in all (server.responseStore.maxBytes)` : undefined;
    if (!cap) return;
    throw new SwitchyardError('rate-limit', `store: true refused: stored responses of ${owner === undefined ? 'the configured keys' : `key ${owner}`} would pass the cap of ${cap} until older ones expire (TTL ${formatDuration(this.ttlMs)}) or are deleted; send store: false or delete stored responses`, {
      code: RESPONSE_STORE_FULL,
      status: 429,
      retryAfterMs: this.sliceMs,
      retryable: false,
      path: 'store',
    });
  }
}

/**
 * The keys of a scope's slices up to `current`, the same strings while the slice lasts (a slice is
 * 1/24 of the TTL): a string used again has its hash already, where 25 new ones a read had to be
 * built and hashed. Bounded: past 1,024 scopes (gateway keys) it starts again.
 */
const keysOfScope = new Map<string, { current: number; keys: string[] }>();

function sliceKeys(scope: string, current: number): string[] {
  const known = keysOfScope.get(scope);
  if (known?.current === current) return known.keys;
  const keys: string[] = [];
  for (let s = current - SLICES; s <= current; s++) keys.push(sliceKey(scope, s));
  if (keysOfScope.size >= 1024) keysOfScope.clear();
  keysOfScope.set(scope, { current, keys });
  return keys;
}

/** The counter of a scope's bytes stored in one slice. */
function sliceKey(scope: string, slice: number): string {
  return `${PREFIX}${scope}:${slice}`;
}

function scopeOf(owner: string | undefined): string {
  return owner === undefined ? '(config)' : `key:${owner}`;
}
