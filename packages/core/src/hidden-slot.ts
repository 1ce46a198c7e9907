/**
 * A value the core keeps beside an object it does not own the shape of (a request, a response,
 * a stream part), found by that object's identity: a copy made by spreading it, `Object.assign`,
 * `structuredClone` or JSON does not carry it, so a plugin that changes the object gets one
 * without the value.
 *
 * A non-enumerable symbol property, not a WeakMap entry: V8's scavenger keeps a WeakMap's value
 * alive as long as the entry is there, whether its key still is or not, so every value outlived
 * its request by a young-generation collection (copied once more, often promoted). These values
 * are a request's body, a vendor's answer text, a stream's events: with the WeakMaps, a streamed
 * request's scavenges copied 1.6 MB instead of 0.9 MB (bench/README.md, "What a scavenge keeps").
 * An object that cannot take a property (frozen, sealed) falls back to a WeakMap.
 */
export interface HiddenSlot<T> {
  set(target: object, value: T): void;
  get(target: object): T | undefined;
}

export function hiddenSlot<T>(name: string): HiddenSlot<T> {
  const key = Symbol(name);
  let frozen: WeakMap<object, T> | undefined;
  return {
    set(target, value) {
      if (Object.hasOwn(target, key)) (target as Record<symbol, T>)[key] = value;
      else if (Object.isExtensible(target)) Object.defineProperty(target, key, { value, writable: true });
      else (frozen ??= new WeakMap()).set(target, value);
    },
    get(target) {
      const value = (target as Record<symbol, T | undefined>)[key];
      return value !== undefined || !frozen ? value : frozen.get(target);
    },
  };
}
