/**
 * A value the core keeps beside an object it does not own the shape of (a request, a response,
 * a stream part), found by that object's identity: a copy made by spreading it, `Object.assign`,
 * `structuredClone` or JSON does not carry it, so a plugin that changes the object gets one
 * without the value.
 *
 * A private field stamped on the object (a class whose base constructor returns the object it is
 * given), not a WeakMap entry: V8's scavenger keeps a WeakMap's value alive as long as the entry
 * is there, whether its key still is or not, so every value outlived its request by a
 * young-generation collection (copied once more, often promoted). These values are a request's
 * body, a vendor's answer text, a stream's events: with the WeakMaps, a streamed request's
 * scavenges copied 1.6 MB instead of 0.9 MB (bench/README.md, "What a scavenge keeps").
 * Nor a non-enumerable symbol property: `Object.defineProperty` runs in V8's runtime on every
 * call (0.2–1.5 µs), where a private field is added through an inline cache (about 0.03 µs), and
 * it is invisible to `Reflect.ownKeys` and proxies too.
 * An object that cannot take a property (frozen, sealed) falls back to a WeakMap.
 */
export interface HiddenSlot<T> {
  set(target: object, value: T): void;
  get(target: object): T | undefined;
}

/** Returns the object it is given from its constructor: a subclass's private field is then added to that object. */
class Stamped {
  constructor(target: object) {
    return target as Stamped;
  }
}

/** `name` says what the slot is for (a slot is its own private field: two of one name are still apart). */
export function hiddenSlot<T>(name: string): HiddenSlot<T> {
  let frozen: WeakMap<object, T> | undefined;
  class Slot extends Stamped {
    static readonly slotName = name;
    #value: T;

    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }

    static set(target: object, value: T): void {
      if (#value in target) (target as Slot).#value = value;
      else if (Object.isExtensible(target)) new Slot(target, value);
      else (frozen ??= new WeakMap()).set(target, value);
    }

    static get(target: object): T | undefined {
      // A plugin's JavaScript may hand over anything: what is not an object has no slot (`in` would throw).
      if ((typeof target !== 'object' || target === null) && typeof target !== 'function') return undefined;
      return #value in target ? (target as Slot).#value : frozen?.get(target);
    }
  }
  return { set: Slot.set, get: Slot.get };
}
