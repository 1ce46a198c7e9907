/**
 * In-process state that belongs with a StateStore rather than with one pipeline: health
 * windows, an in-memory response cache. A gateway reload hands the same store to the new
 * pipeline, so state kept here survives the reload; a new store starts fresh.
 */
import type { StateStore } from './state-store.js';

const locals = new WeakMap<StateStore, Map<string, unknown>>();

/** The object named `name` that lives as long as `store`, made by `create` the first time. */
export function storeLocal<T>(store: StateStore, name: string, create: () => T): T {
  let held = locals.get(store);
  if (!held) locals.set(store, (held = new Map()));
  if (!held.has(name)) held.set(name, create());
  return held.get(name) as T;
}
