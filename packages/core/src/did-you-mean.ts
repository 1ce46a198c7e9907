/**
 * "Did you mean" for a mistyped name (an option, a field, an endpoint): the closest known name
 * by edit distance, case-insensitive, when it is close enough to be the likely intent.
 */
import type { z } from 'zod';

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The known name closest to `word`: within a third of its length (2 edits for short words, fewer than its length), or one starting with the other. */
export function closestName(word: string, names: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    if (name === word) continue;
    const other = name.toLowerCase();
    const d = other.startsWith(lower) || lower.startsWith(other) ? Math.min(2, distance(lower, other)) : distance(lower, other);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best !== undefined && bestDistance < word.length && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** ` (did you mean "x"?)`, or nothing when no known name is close. */
export function didYouMean(word: string, names: Iterable<string>): string {
  const close = closestName(word, names);
  return close === undefined ? '' : ` (did you mean "${close}"?)`;
}

interface SchemaDef {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  element?: unknown;
  valueType?: unknown;
  options?: unknown[];
  in?: unknown;
  left?: unknown;
  right?: unknown;
  items?: unknown[];
}

const defOf = (schema: unknown): SchemaDef | undefined => (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;

/** The schemas a value at `path` is checked against (wrappers unwrapped; every branch of a union). */
function schemasAt(schema: unknown, path: readonly PropertyKey[]): unknown[] {
  const def = defOf(schema);
  if (!def) return [];
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return schemasAt(def.innerType, path);
    case 'pipe':
      return schemasAt(def.in, path);
    case 'union':
      return (def.options ?? []).flatMap((option) => schemasAt(option, path));
    case 'intersection':
      return [...schemasAt(def.left, path), ...schemasAt(def.right, path)];
  }
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (def.type === 'object') return def.shape && typeof head === 'string' && head in def.shape ? schemasAt(def.shape[head], rest) : [];
  if (def.type === 'array') return schemasAt(def.element, rest);
  if (def.type === 'tuple') return typeof head === 'number' && def.items?.[head] ? schemasAt(def.items[head], rest) : [];
  if (def.type === 'record') return schemasAt(def.valueType, rest);
  return [];
}

/** The field names an object schema accepts at `path` (empty when it is not an object there). */
export function knownFieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const out = new Set<string>();
  for (const found of schemasAt(schema, path)) {
    const def = defOf(found);
    if (def?.type === 'object' && def.shape) for (const key of Object.keys(def.shape)) out.add(key);
  }
  return [...out];
}

/** The message of an `unrecognized_keys` issue: each unknown field, with the closest known one. */
export function unknownFieldsMessage(keys: readonly string[], known: readonly string[]): string {
  return `unknown field(s) ${keys.map((k) => `"${k}"${didYouMean(k, known)}`).join(', ')}`;
}
