/**
 * Cooldowns: "do not send here before T". Set from Retry-After (and from key failures and
 * misconfigured deployments), stored with a TTL in the StateStore so every request, and every
 * gateway instance on a shared store, skips a cooling candidate until the time is up.
 */
import { type Candidate, type Clock, type StateStore } from '@switchyard/core';
import { readManyNow } from '@switchyard/core/internal';

export interface Cooldown {
  until: number;
  reason: string;
}

const PREFIX = 'switchyard:cooldown:';

/** The key a candidate uses, shared by every deployment of its endpoint. */
export function keyScope(candidate: Candidate): string {
  return `key:${candidate.endpoint.name}#${candidate.keyIndex}`;
}

/**
 * Scopes a candidate can be cooled under: itself (a deployment, or one key of it when the
 * endpoint has several), the whole deployment, and its API key.
 */
export function scopesOf(candidate: Candidate): string[] {
  const scopes = [candidate.id];
  if (candidate.deploymentId !== candidate.id) scopes.push(candidate.deploymentId);
  scopes.push(keyScope(candidate));
  return scopes;
}

/** Candidates are made once per pipeline: their store keys are too. */
const keysByCandidate = new WeakMap<Candidate, string[]>();

function storeKeysOf(candidate: Candidate): string[] {
  let keys = keysByCandidate.get(candidate);
  if (!keys) keysByCandidate.set(candidate, (keys = scopesOf(candidate).map((scope) => PREFIX + scope)));
  return keys;
}

/** A stored cooldown that has not ended (entries from other versions may lack `until`). */
function isLive(entry: Cooldown | undefined, now: number): entry is Cooldown {
  return entry !== undefined && entry !== null && typeof entry.until === 'number' && entry.until > now;
}

export class Cooldowns {
  constructor(
    private readonly store: StateStore,
    private readonly clock: Clock,
  ) {}

  /** Cools `scope` for `ms`; an existing longer cooldown is kept (a cooldown never shrinks). */
  async set(scope: string, ms: number, reason: string): Promise<Cooldown> {
    const key = PREFIX + scope;
    const now = this.clock.now();
    const existing = await this.live(key, now);
    const until = now + Math.max(0, ms);
    if (existing && existing.until >= until) return existing;
    const entry = { until, reason };
    await this.store.set(key, entry, until - now);
    return entry;
  }

  async get(scope: string): Promise<Cooldown | undefined> {
    return this.live(PREFIX + scope, this.clock.now());
  }

  async clear(scope: string): Promise<void> {
    await this.store.delete(PREFIX + scope);
  }

  /** The latest cooldown that applies to the candidate, if any. */
  async of(candidate: Candidate): Promise<Cooldown | undefined> {
    return (await this.ofEach([candidate]))[0];
  }

  /**
   * The latest cooldown of each candidate, in one store read for all of them (asked on every
   * request): at once (an array, no promise) when the store is in this process.
   */
  ofEach(candidates: readonly Candidate[]): (Cooldown | undefined)[] | Promise<(Cooldown | undefined)[]> {
    const keys: string[] = [];
    for (const c of candidates) keys.push(...storeKeysOf(c));
    const entries = readManyNow<Cooldown>(this.store, keys);
    if (Array.isArray(entries)) return this.latestOfEach(candidates, entries);
    return entries.then((read) => this.latestOfEach(candidates, read));
  }

  private latestOfEach(candidates: readonly Candidate[], entries: (Cooldown | undefined)[]): (Cooldown | undefined)[] {
    const now = this.clock.now();
    const out: (Cooldown | undefined)[] = [];
    let at = 0;
    for (const c of candidates) {
      let latest: Cooldown | undefined;
      for (const end = at + storeKeysOf(c).length; at < end; at++) {
        const e = entries[at];
        if (isLive(e, now) && (!latest || e.until > latest.until)) latest = e;
      }
      out.push(latest);
    }
    return out;
  }

  private async live(key: string, now: number): Promise<Cooldown | undefined> {
    const entry = await this.store.get<Cooldown>(key);
    return isLive(entry, now) ? entry : undefined;
  }
}
