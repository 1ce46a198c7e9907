/**
 * Copies on the request path. In Node 20's V8 an object spread followed by a field `a` does not
 * have (`{ ...a, b }`, `{ ...a, ...b }` after a literal field, or a field set on a spread copy)
 * leaves the fast clone path: about 1–2 µs a call, against 0.05–0.3 µs for a literal filled by
 * assignment (bench/README.md, "object spreads"). Replacing a field `a` has stays on it. Code
 * that runs once per request or per attempt copies with these instead.
 */

/** Copies the own fields of `source` (if any) onto `target`; returns `target`. */
export function addFields<T extends Record<string, unknown>>(target: T, source: Readonly<Record<string, unknown>> | undefined): T {
  if (source) for (const key in source) if (Object.hasOwn(source, key)) (target as Record<string, unknown>)[key] = source[key];
  return target;
}

/** A copy of `source` (own enumerable fields, symbols included, as a spread) with `key` set to `value`. */
export function withField<T extends object, K extends string, V>(source: T, key: K, value: V): Omit<T, K> & Record<K, V> {
  const copy = Object.assign({}, source) as Record<string, unknown>;
  copy[key] = value;
  return copy as Omit<T, K> & Record<K, V>;
}
