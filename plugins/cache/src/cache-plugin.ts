/**
 * Exact-match response cache with a serve-stale fallback.
 *
 * Taps: classify at STAGE.DEFAULT (a fresh hit settles the request with ctx.respond; the core
 * replays it as a stream for stream requests), recordRequest (stores complete, successful,
 * first-hand answers), degrade at STAGE.LAST (an expired answer within `staleTtlMs` answers when
 * every candidate failed, unless a degrade plan claimed the stale answer for its own order).
 */
import { REQUEST_SLOT } from '@switchyard/contracts';
import { defineService, definePlugin, outcomeOf, provideService, requireService, STAGE, storeLocal, type ChatRequest, type ChatResponse, type Pipeline, type RequestContext } from '@switchyard/core';
import { cacheKey } from './cache-key.js';
import { cacheScope } from './cache-scope.js';
import { cacheOptionsSchema, type CacheOptions, type CacheOptionsInput } from './options.js';
import { MemoryResponseStore, StateStoreResponseStore, type CacheEntry, type ResponseStore } from './response-store.js';
import type { StaleAnswerSlot } from './stale-answer.js';

export const PLUGIN_NAME = '@switchyard/plugin-cache';
const KEY_SLOT = 'switchyard:cache-key';
const UNCACHEABLE_FINISH = new Set([null, 'error', 'content_filter']);

export interface CacheStats {
  hits: number;
  misses: number;
  stores: number;
  staleServed: number;
}

const CACHE_STATS = defineService<CacheStats>('switchyard.cache-stats', { providedBy: PLUGIN_NAME });

/** The cache counters of `pipeline`; throws a coded error when the plugin is not applied. */
export function getCacheStats(pipeline: Pipeline): CacheStats {
  return { ...requireService(pipeline, CACHE_STATS) };
}

function cacheable(ctx: RequestContext): boolean {
  return ctx.kind === 'chat' && ctx.request.switchyard?.cache !== false;
}

/** The stored answer as the caller sees it: who first answered, and that it came from the cache. */
function label(entry: CacheEntry, extra: { stale?: boolean; attempts: number }): ChatResponse {
  const origin = entry.response.switchyard;
  return {
    ...entry.response,
    switchyard: {
      endpoint: origin?.endpoint ?? 'cache',
      deployment: origin?.deployment ?? 'cache',
      provider: origin?.provider ?? 'cache',
      attempts: extra.attempts,
      cached: true,
      ...(extra.stale ? { stale: true } : {}),
    },
  };
}

function firstHand(response: ChatResponse): ChatResponse {
  const info = response.switchyard;
  return { ...response, switchyard: info ? { endpoint: info.endpoint, deployment: info.deployment, provider: info.provider, attempts: info.attempts } : undefined };
}

export const cache = definePlugin<CacheOptions, CacheOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: cacheOptionsSchema,
  apply(pipeline, options) {
    const { clock } = pipeline;
    const stats: CacheStats = { hits: 0, misses: 0, stores: 0, staleServed: 0 };
    provideService(pipeline, CACHE_STATS, stats);
    const store: ResponseStore =
      options.store === 'memory'
        ? // Held with the pipeline's store: a gateway reload that reuses the store keeps the cached answers.
          storeLocal(pipeline.store, `switchyard.cache:${options.storePrefix}`, () => new MemoryResponseStore(() => clock.now(), options.maxEntries, options.maxBytes))
        : new StateStoreResponseStore(pipeline.store, options.storePrefix);
    const keepMs = options.ttlMs + options.staleTtlMs;

    pipeline.hooks.classify.tapPromise({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, async (classification, ctx) => {
      if (!cacheable(ctx)) return classification;
      const key = cacheKey(ctx.request as ChatRequest, cacheScope(ctx.caller, options.share));
      ctx.state[KEY_SLOT] = key;
      const entry = await store.get(key);
      if (entry && clock.now() < entry.storedAt + options.ttlMs) {
        stats.hits += 1;
        pipeline.events.emit('cache:lookup', { requestId: ctx.id, result: 'hit' });
        ctx.respond(label(entry, { attempts: 0 }));
        return classification;
      }
      stats.misses += 1;
      pipeline.events.emit('cache:lookup', { requestId: ctx.id, result: 'miss' });
      // The answer is stored whole: a pass-through stream's text is decoded for it at the end (core's kept-stream.ts).
      classification.keepAnswer = true;
      if (options.staleTtlMs > 0) {
        const slot: StaleAnswerSlot = {
          claimed: false,
          lookup: async () => {
            const found = await store.get(key);
            if (!found) return undefined;
            stats.staleServed += 1;
            pipeline.events.emit('cache:lookup', { requestId: ctx.id, result: 'stale' });
            return label(found, { stale: clock.now() >= found.storedAt + options.ttlMs, attempts: ctx.attempts.length });
          },
        };
        REQUEST_SLOT.staleAnswer.set(ctx, slot);
      }
      return classification;
    });

    pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (outcome, ctx) => {
      const key = ctx.state[KEY_SLOT] as string | undefined;
      const response = outcome.response;
      if (!key || !outcome.ok || !response || outcome.degraded) return;
      const info = response.switchyard;
      if (info?.cached || info?.stale || info?.degraded) return;
      if (response.choices.length === 0 || response.choices.some((c) => UNCACHEABLE_FINISH.has(c.finish_reason))) return;
      await store.set(key, { response: firstHand(response), storedAt: clock.now() }, keepMs);
      stats.stores += 1;
    });

    pipeline.hooks.degrade.tapPromise({ name: PLUGIN_NAME, stage: STAGE.LAST }, async (error, ctx) => {
      const slot = REQUEST_SLOT.staleAnswer.get(ctx);
      // A rejected request would be rejected again: an old answer must not hide that.
      if (!slot || slot.claimed || outcomeOf(error) === 'request-failure') return undefined;
      const response = await slot.lookup();
      return response ? { level: 'stale-cache', response } : undefined;
    });
  },
});

export default cache;
