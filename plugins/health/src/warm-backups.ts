/**
 * Warm backups: when a deployment's breaker opens or its health drops below the threshold, open
 * connections to the next candidates ahead of need (the core transport's `preconnect`, an undici
 * connector that parks the TCP + TLS connection) and, when configured, run one cheap probe, so
 * the first failed-over request does not pay the connection set-up.
 */
import { BREAKER_HOOKS, HEALTH_HOOKS, HEALTH_PLUGIN } from '@switchyard/contracts';
import type { Candidate, Pipeline } from '@switchyard/core';
import type { HealthOptions } from './options.js';

/** The same origin is not warmed again within this long. */
const REWARM_MS = 10_000;

export function warmBackups(pipeline: Pipeline, options: HealthOptions['warmBackups'], probe: (target: Candidate) => void): void {
  if (!options.enabled || !pipeline.transport.preconnect) return;
  const warmedAt = new Map<string, number>();
  const baseOf = (c: Candidate) => c.endpoint.baseUrl ?? pipeline.providers.get(c.provider)?.defaultBaseUrl;

  const warmAround = (deployment: string) => {
    const now = pipeline.clock.now();
    const seen = new Set<string>();
    for (const model of pipeline.modelNames()) {
      const candidates = pipeline.candidatesFor(model);
      const failing = candidates.find((c) => c.deploymentId === deployment);
      if (!failing) continue;
      const failingOrigin = originOf(baseOf(failing));
      let warmed = 0;
      for (const next of candidates) {
        if (warmed >= options.backups) break;
        const base = baseOf(next);
        const origin = originOf(base);
        if (!base || !origin || next.deploymentId === deployment || origin === failingOrigin || seen.has(next.deploymentId)) continue;
        seen.add(next.deploymentId);
        warmed++;
        if ((warmedAt.get(origin) ?? -Infinity) + REWARM_MS > now) continue;
        warmedAt.set(origin, now);
        // Best effort: a backup that cannot be reached now is tried (and judged) when needed.
        void pipeline.transport.preconnect!(base).catch(() => false);
        if (options.probe) probe(next);
      }
    }
  };

  BREAKER_HOOKS.of(pipeline).open.tap(HEALTH_PLUGIN, ({ deployment }) => warmAround(deployment));
  HEALTH_HOOKS.of(pipeline).change.tap(HEALTH_PLUGIN, ({ deployment, healthy }) => {
    if (!healthy) warmAround(deployment);
  });
}

function originOf(base: string | undefined): string | undefined {
  if (!base) return undefined;
  try {
    return new URL(base).origin;
  } catch {
    return undefined;
  }
}
