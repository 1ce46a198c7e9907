/**
 * Pub/sub for a RedisStateStore: one extra connection in subscriber mode, opened on the first
 * subscribe. Messages carry the publishing store's id so an instance ignores its own. ioredis
 * subscribes again by itself after a reconnect.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { reopenWhenEnded } from './reopen.js';

interface Envelope {
  origin: string;
  message: unknown;
}

export class RedisPubSub {
  readonly origin = randomUUID();
  private subscriber: Redis | undefined;
  private closed = false;
  private readonly listeners = new Map<string, Set<(message: unknown) => void>>();

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  encode(message: unknown): string {
    return JSON.stringify({ origin: this.origin, message } satisfies Envelope);
  }

  channel(name: string): string {
    return `${this.prefix}events:${name}`;
  }

  subscribe(name: string, listener: (message: unknown) => void): () => void {
    const channel = this.channel(name);
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      this.connection().then((sub) => (sub.status === 'ready' ? sub.subscribe(channel) : undefined)).catch(this.onError);
    }
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size > 0) return;
      this.listeners.delete(channel);
      if (this.subscriber?.status === 'ready') this.subscriber.unsubscribe(channel).catch(this.onError);
    };
  }

  private async connection(): Promise<Redis> {
    if (this.subscriber) return this.subscriber;
    const sub = this.client.duplicate({ enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResubscribe: true, lazyConnect: false });
    this.subscriber = sub;
    reopenWhenEnded(sub, () => this.closed);
    sub.on('error', () => undefined); // the command connection reports outages already
    // The first connection (and any before ioredis tracks the set) subscribes to everything wanted.
    sub.on('ready', () => {
      const wanted = [...this.listeners.keys()];
      if (wanted.length > 0) sub.subscribe(...wanted).catch(this.onError);
    });
    sub.on('message', (channel: string, raw: string) => {
      let envelope: Envelope;
      try {
        envelope = JSON.parse(raw) as Envelope;
      } catch {
        return;
      }
      if (envelope.origin === this.origin) return;
      for (const listener of this.listeners.get(channel) ?? []) {
        try {
          listener(envelope.message);
        } catch (error) {
          this.onError(error);
        }
      }
    });
    return sub;
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }
}
