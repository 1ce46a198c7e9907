/**
 * How plugins cooperate without importing each other's packages: typed service keys, one
 * registry per pipeline (like webpack's hook registries). A plugin defines a key with
 * `defineService<T>(name, { providedBy })`, provides its service when applied, and anyone
 * holding the key gets it back typed. Per-request hand-overs use typed request slots.
 */
import type { Pipeline, RequestContext } from './contract.js';
import { SwitchyardError } from './errors.js';

declare const serviceType: unique symbol;

/** A typed name for a service; `T` exists only for the type checker. */
export interface ServiceKey<T> {
  readonly name: string;
  /** The package that provides it, for the "not applied" error. */
  readonly providedBy?: string;
  readonly [serviceType]?: T;
}

export function defineService<T>(name: string, options: { providedBy?: string } = {}): ServiceKey<T> {
  return Object.freeze({ name, providedBy: options.providedBy });
}

const registries = new WeakMap<object, Map<string, unknown>>();
const nameOf = (key: ServiceKey<unknown> | string) => (typeof key === 'string' ? key : key.name);

export function provideService<T>(pipeline: Pipeline, key: ServiceKey<T> | string, service: T): void {
  let registry = registries.get(pipeline);
  if (!registry) registries.set(pipeline, (registry = new Map()));
  registry.set(nameOf(key), service);
}

/** The service, or undefined when no plugin provides it (optional cooperation). */
export function getService<T>(pipeline: Pipeline, key: ServiceKey<T> | string): T | undefined {
  return registries.get(pipeline)?.get(nameOf(key)) as T | undefined;
}

/** The service; a coded error names the plugin to apply when none provides it. */
export function requireService<T>(pipeline: Pipeline, key: ServiceKey<T>): T {
  const service = getService(pipeline, key);
  if (service === undefined) throw new SwitchyardError('plugin', `${key.providedBy ?? key.name} is not applied to this pipeline`, { code: 'SWITCHYARD_ERR_PLUGIN_MISSING' });
  return service;
}

/** A typed per-request slot in `ctx.state`, for plugins that hand something over within one request. */
export interface RequestSlot<T> {
  readonly name: string;
  get(ctx: RequestContext): T | undefined;
  set(ctx: RequestContext, value: T): void;
}

export function defineRequestSlot<T>(name: string): RequestSlot<T> {
  return Object.freeze({
    name,
    get: (ctx: RequestContext) => ctx.state[name] as T | undefined,
    set: (ctx: RequestContext, value: T) => {
      ctx.state[name] = value;
    },
  });
}
