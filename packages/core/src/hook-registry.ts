/**
 * Hooks a plugin publishes for others to tap (webpack's `getCompilationHooks` pattern): the
 * publisher defines them once with `defineHooks(owner, factory)`, and both it and its tappers
 * ask `hooks.of(pipeline)`; the first to ask creates them, so the order the plugins are applied
 * in does not matter. A plugin taps another's hooks without importing that plugin: the
 * definition lives where both can import it (the publisher's package, or a contracts package).
 */
import type { Pipeline } from './contract.js';

export interface HookRegistry<Hooks extends object> {
  /** The package that calls these hooks. */
  readonly owner: string;
  /** The pipeline's instance of the hooks, created on first use. */
  of(pipeline: Pipeline): Hooks;
}

// Per pipeline, per owner name: two copies of a definition (a package loaded twice) share hooks.
const published = new WeakMap<Pipeline, Map<string, object>>();

export function defineHooks<Hooks extends object>(owner: string, factory: () => Hooks): HookRegistry<Hooks> {
  return Object.freeze({
    owner,
    of(pipeline: Pipeline): Hooks {
      let byOwner = published.get(pipeline);
      if (!byOwner) published.set(pipeline, (byOwner = new Map()));
      let hooks = byOwner.get(owner) as Hooks | undefined;
      if (!hooks) byOwner.set(owner, (hooks = Object.freeze(factory())));
      return hooks;
    },
  });
}
