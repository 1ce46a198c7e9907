/**
 * Where the connection shares meet the pipeline: every provider's `call` takes a slot of the
 * caller's key on the candidate's origin just before the built-in call (after hedging, which runs
 * its attempts through `call` again), and the attempt's `recordAttempt` gives it back (a stream's
 * when it ends); the request's end gives back whatever an attempt left (one a plugin replaced).
 */
import { STAGE, tapEveryCall, type Attempt, type Candidate, type Pipeline, type RequestContext } from '@switchyard/core';
import { tapMaybeAsync } from '@switchyard/core/internal';
import { providerBaseUrl } from '@switchyard/core/wire';
import { ConnectionShares, type Release } from './connection-shares.js';
import { PLUGIN_NAME } from './name.js';
import type { TenantsOptions } from './options.js';

export interface ShareTaps {
  /** Gives back the slot of one attempt, or of every attempt of the request. */
  ended(ctx: RequestContext, attempt?: number): void;
}

export function connectionShares(pipeline: Pipeline, options: TenantsOptions): ShareTaps | undefined {
  const config = options.connectionShare;
  if (config === false) return undefined;
  const connections = config.connections ?? pipeline.transport.connectionsPerOrigin;
  // A transport that does not say how many connections it opens has nothing to share out.
  if (connections === undefined) return undefined;
  const shares = new ConnectionShares({ perKey: Math.max(1, Math.floor(connections * config.share)), connections, share: config.share, queueMs: config.queueMs }, pipeline.clock);
  const held = new WeakMap<RequestContext, Map<number, Release>>();
  const origins = new Map<string, string>();
  const originOf = (candidate: Candidate): string | undefined => {
    let origin = origins.get(candidate.endpoint.name);
    if (origin === undefined) {
      const provider = pipeline.providers.get(candidate.provider);
      if (!provider) return undefined;
      try {
        origin = new URL(providerBaseUrl(provider, candidate.endpoint)).origin;
      } catch {
        return undefined;
      }
      origins.set(candidate.endpoint.name, origin);
    }
    return origin;
  };

  const keep = (ctx: RequestContext, attempt: number, release: Release): undefined => {
    let attempts = held.get(ctx);
    if (!attempts) held.set(ctx, (attempts = new Map()));
    attempts.set(attempt, release);
    return undefined;
  };
  // Answered in the same tick while the key is under its share (no promise per call).
  tapEveryCall(pipeline, (hook) =>
    tapMaybeAsync(hook, { name: PLUGIN_NAME, stage: STAGE.DEFAULT - 1 }, (attempt: Attempt, ctx: RequestContext) => {
      const keyId = ctx.caller?.keyId;
      const origin = keyId === undefined ? undefined : originOf(attempt.candidate);
      if (origin === undefined) return undefined;
      const abort = attempt.abort;
      const onAbort = abort ? (listener: () => void) => abort.onAbort(listener) : (listener: () => void) => subscribe(attempt.signal, listener);
      const slot = shares.acquire(origin, keyId!, ctx.timeLeft(), onAbort);
      return slot instanceof Promise ? slot.then((release) => keep(ctx, attempt.number, release)) : keep(ctx, attempt.number, slot);
    }),
  );

  return {
    ended(ctx, attempt) {
      const attempts = held.get(ctx);
      if (!attempts) return;
      if (attempt === undefined) {
        for (const release of attempts.values()) release();
        held.delete(ctx);
        return;
      }
      attempts.get(attempt)?.();
      attempts.delete(attempt);
    },
  };
}

function subscribe(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
