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
import { formatDuration } from '@switchyard/core/internal';
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

  private async held(scope: string, current: number): Promise<number> {
    const keys: string[] = [];
    for (let s = current - SLICES; s <= current; s++) keys.push(`${PREFIX}${scope}:${s}`);
    const values = await Promise.all(keys.map((k) => this.store.get<number>(k)));
    return values.reduce<number>((sum, v) => sum + (v ?? 0), 0);
  }

  /** Refuses before the call when what the key and everyone hold, plus `bytes`, is past a cap (nothing is counted). */
  async check(owner: string | undefined, bytes: number): Promise<void> {
    const slice = this.slice();
    const [mine, all] = await Promise.all([this.held(scopeOf(owner), slice), this.held('all', slice)]);
    this.refuseOver(owner, mine + bytes, all + bytes);
  }

  /** Counts `bytes` for `owner` in `slice`, or throws the coded 429 (rolled back) when that passes a cap. */
  async add(owner: string | undefined, bytes: number, slice: number): Promise<void> {
    const ttl = this.ttlMs + this.sliceMs;
    const mineKey = `${PREFIX}${scopeOf(owner)}:${slice}`;
    const allKey = `${PREFIX}all:${slice}`;
    await Promise.all([this.store.increment(mineKey, bytes, ttl), this.store.increment(allKey, bytes, ttl)]);
    const [mine, all] = await Promise.all([this.held(scopeOf(owner), slice), this.held('all', slice)]);
    try {
      this.refuseOver(owner, mine, all);
    } catch (error) {
      await this.remove(owner, bytes, slice);
      throw error;
    }
  }

  async remove(owner: string | undefined, bytes: number, slice: number): Promise<void> {
    const ttl = this.ttlMs + this.sliceMs;
    await Promise.all([this.store.increment(`${PREFIX}${scopeOf(owner)}:${slice}`, -bytes, ttl), this.store.increment(`${PREFIX}all:${slice}`, -bytes, ttl)]);
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

function scopeOf(owner: string | undefined): string {
  return owner === undefined ? '(config)' : `key:${owner}`;
}
