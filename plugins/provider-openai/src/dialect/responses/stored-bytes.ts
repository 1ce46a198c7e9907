/**
 * How many bytes of stored Responses a gateway key holds, and all keys together, within the
 * TTL: counters in the pipeline's StateStore (shared and exact across gateways on Redis), one
 * per slice of the TTL (1/24 of it), each expiring a slice after the responses counted in it.
 * The bytes held now are the sum of the slices a TTL covers; a response is counted in the slice
 * it was stored in, so a slice's bytes leave the sum at most one slice after they expired.
 * Increment first, then compare, then roll back when over: concurrent stores never pass a cap
 * between them.
 *
 * Only the last two slices change between deletes (a store counts in the current slice, and a
 * gateway whose clock is a little behind in the one before): the sums of the older ones are kept
 * per store and read again only when the slice moves on or a delete, here or on another gateway,
 * bumped the removals counter. A warm read is 5 keys instead of 51.
 */
import { SwitchyardError, type Clock, type StateStore } from '@switchyard/core';
import { formatDuration, readManyNow } from '@switchyard/core/internal';
import { RESPONSE_STORE_FULL } from './errors.js';

const SLICES = 24;
const PREFIX = 'switchyard:responses:bytes:';
/** Bumped after every delete: the older slices' sums another gateway kept are stale. */
const REMOVALS_KEY = `${PREFIX}removals`;

/** The sums of a scope's and everyone's older slices (all but the last two) for the slice `current`, read when removals stood at `removals`. */
interface OlderSums {
  current: number;
  removals: number;
  mine: number;
  all: number;
}

/** Per store, per slice length and scope (`sliceMs|scope`); bounded as `keysOfScope` is. */
const olderSums = new WeakMap<StateStore, Map<string, OlderSums>>();

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
   * (one MGET on Redis, at once in memory): the last two slices and the removals counter, and
   * every slice when the older ones' sums are not known for this slice and removals count.
   */
  private async held(owner: string | undefined, current: number): Promise<[mine: number, all: number]> {
    const scope = scopeOf(owner);
    const keys = sliceKeys(scope, current);
    let sums = olderSums.get(this.store);
    if (!sums) olderSums.set(this.store, (sums = new Map()));
    const cacheKey = `${this.sliceMs}|${scope}`;
    const known = sums.get(cacheKey);
    if (known?.current === current) {
      const read = readManyNow<number>(this.store, keys.recent);
      const recent = Array.isArray(read) ? read : await read;
      if ((recent[4] ?? 0) === known.removals) return [known.mine + (recent[0] ?? 0) + (recent[1] ?? 0), known.all + (recent[2] ?? 0) + (recent[3] ?? 0)];
    }
    const read = readManyNow<number>(this.store, keys.every);
    const values = Array.isArray(read) ? read : await read;
    const older: OlderSums = { current, removals: values[2 * (SLICES + 1)] ?? 0, mine: 0, all: 0 };
    for (let i = 0; i < SLICES - 1; i++) {
      older.mine += values[i] ?? 0;
      older.all += values[SLICES + 1 + i] ?? 0;
    }
    if (sums.size >= 1024) sums.clear();
    sums.set(cacheKey, older);
    return [older.mine + (values[SLICES - 1] ?? 0) + (values[SLICES] ?? 0), older.all + (values[2 * SLICES] ?? 0) + (values[2 * SLICES + 1] ?? 0)];
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
    // After the bytes are back: a gateway reading between the two still counts them (it refuses early, never passes a cap).
    await this.store.increment(REMOVALS_KEY, 1);
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

/** What `held` reads: the scope's slices up to `current` then everyone's, then the removals counter; or only the last two of each and the counter. */
interface HeldKeys {
  current: number;
  every: string[];
  recent: string[];
}

/**
 * The keys `held` reads for a scope, the same strings while the slice lasts (a slice is 1/24 of
 * the TTL): a string used again has its hash already. Bounded: past 1,024 scopes (gateway keys)
 * it starts again.
 */
const keysOfScope = new Map<string, HeldKeys>();

function sliceKeys(scope: string, current: number): HeldKeys {
  const known = keysOfScope.get(scope);
  if (known?.current === current) return known;
  const every: string[] = [];
  for (const of of [scope, 'all']) for (let s = current - SLICES; s <= current; s++) every.push(sliceKey(of, s));
  every.push(REMOVALS_KEY);
  const recent = [every[SLICES - 1]!, every[SLICES]!, every[2 * SLICES]!, every[2 * SLICES + 1]!, REMOVALS_KEY];
  if (keysOfScope.size >= 1024) keysOfScope.clear();
  const keys = { current, every, recent };
  keysOfScope.set(scope, keys);
  return keys;
}

/** The counter of a scope's bytes stored in one slice. */
function sliceKey(scope: string, slice: number): string {
  return `${PREFIX}${scope}:${slice}`;
}

function scopeOf(owner: string | undefined): string {
  return owner === undefined ? '(config)' : `key:${owner}`;
}
