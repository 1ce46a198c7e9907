/**
 * Health shared between gateways on one store. Each instance scores from its own traffic;
 * its health transitions travel to the others by pub/sub (`health:change` with `remote:
 * true` there) and are kept in the store, so an instance that starts later learns them. A
 * deployment another instance found unhealthy is unhealthy here too until that instance
 * sees it recover, or `maxAgeMs` passes without news (the other instance may be gone).
 */
import { HEALTH_HOOKS, HEALTH_PLUGIN, type HealthChange } from '@switchyard/contracts';
import { storeLocal, type Pipeline } from '@switchyard/core';
import { relayEvents } from '@switchyard/core/internal';

const KEY = 'switchyard:health:verdict:';

interface Verdict {
  score: number;
  until: number;
}

export class SharedVerdicts {
  private readonly verdicts: Map<string, Verdict>;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly maxAgeMs: number,
  ) {
    this.verdicts = storeLocal(pipeline.store, 'switchyard.health.shared', () => new Map<string, Verdict>());
  }

  /** The score another instance reported for a deployment it found unhealthy, if that still stands. */
  unhealthyScore(deploymentId: string, now: number): number | undefined {
    const v = this.verdicts.get(deploymentId);
    if (!v) return undefined;
    if (v.until > now) return v.score;
    this.verdicts.delete(deploymentId);
    return undefined;
  }

  /** Relays this pipeline's transitions and applies the others'. False when the store has no pub/sub. */
  start(): boolean {
    const { events, store, clock } = this.pipeline;
    if (!relayEvents(this.pipeline, 'health', ['health:change'])) return false;
    const hooks = HEALTH_HOOKS.of(this.pipeline);
    hooks.change.tap(HEALTH_PLUGIN, ({ deployment, healthy, score, remote }) => {
      if (remote) this.apply(deployment, healthy, score, clock.now() + this.maxAgeMs);
      else if (healthy) void store.delete(KEY + deployment).catch(() => undefined);
      else void store.set(KEY + deployment, { score, until: clock.now() + this.maxAgeMs } satisfies Verdict, this.maxAgeMs).catch(() => undefined);
    });
    // Other instances' transitions arrive as relayed events: passed on to the hook, so its tappers see every one.
    const onRelayed = (change: HealthChange) => void (change.remote && hooks.change.call(change));
    events.on('health:change', onRelayed);
    events.once('pipeline:close', () => events.off('health:change', onRelayed));
    // Transitions announced before this instance started.
    const ids = new Set(this.pipeline.modelNames().flatMap((m) => this.pipeline.candidatesFor(m).map((c) => c.deploymentId)));
    for (const id of ids) {
      void store
        .get<Verdict>(KEY + id)
        .then((v) => v && this.apply(id, false, v.score, v.until))
        .catch(() => undefined);
    }
    return true;
  }

  private apply(deploymentId: string, healthy: boolean, score: number, until: number): void {
    if (healthy) this.verdicts.delete(deploymentId);
    else this.verdicts.set(deploymentId, { score, until });
  }
}
