/**
 * Where cached answers live: an in-memory LRU bounded by entries and bytes (default), or the
 * pipeline's StateStore (shared between gateway instances; bounded by TTL only).
 */
import type { ChatResponse, StateStore } from '@switchyard/core';

export interface CacheEntry {
  response: ChatResponse;
  storedAt: number;
}

export interface ResponseStore {
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry, ttlMs: number): Promise<void>;
}

interface Held extends CacheEntry {
  bytes: number;
  expiresAt: number;
}

export class MemoryResponseStore implements ResponseStore {
  private readonly entries = new Map<string, Held>();
  private bytes = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    const held = this.entries.get(key);
    if (!held) return undefined;
    this.entries.delete(key);
    if (held.expiresAt <= this.now()) {
      this.bytes -= held.bytes;
      return undefined;
    }
    // Re-inserting marks it most recently used.
    this.entries.set(key, held);
    return held;
  }

  async set(key: string, entry: CacheEntry, ttlMs: number): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(entry.response));
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { ...entry, bytes, expiresAt: this.now() + ttlMs });
    this.bytes += bytes;
    for (const [oldest, held] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= held.bytes;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }
}

export class StateStoreResponseStore implements ResponseStore {
  constructor(
    private readonly store: StateStore,
    private readonly prefix: string,
  ) {}

  get(key: string): Promise<CacheEntry | undefined> {
    return this.store.get<CacheEntry>(`${this.prefix}:${key}`);
  }

  set(key: string, entry: CacheEntry, ttlMs: number): Promise<void> {
    return this.store.set(`${this.prefix}:${key}`, entry, ttlMs);
  }
}
