/**
 * Vertex `streamFunctionCallArguments` sends a call's arguments as fragments addressed by a JSON
 * path (`$.location`, `$.items[0].name`); string values arrive in pieces and are concatenated.
 * The fragments are assembled into an object and serialised once the call is complete.
 */
import type { GeminiPartialArg } from './wire-types.js';

/** `$.a.b[0]["c d"]` → ['a', 'b', 0, 'c d']; undefined for paths this codec cannot follow. */
export function parseJsonPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const keys: (string | number)[] = [];
  const re = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]/y;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (!m) return undefined;
    if (m[1] !== undefined) keys.push(m[1]);
    else if (m[2] !== undefined) keys.push(Number(m[2]));
    else keys.push((m[3] ?? m[4]).replace(/\\(.)/g, '$1'));
  }
  return keys.length > 0 ? keys : undefined;
}

function valueOf(arg: GeminiPartialArg): { value: unknown } | undefined {
  if (arg.stringValue !== undefined) return { value: arg.stringValue };
  if (arg.numberValue !== undefined) return { value: arg.numberValue };
  if (arg.boolValue !== undefined) return { value: arg.boolValue };
  if ('nullValue' in arg) return { value: null };
  return undefined;
}

type Container = Record<string, unknown> | unknown[];

/** Applies one fragment to the arguments being assembled; unreadable fragments are skipped. */
export function applyPartialArg(args: Record<string, unknown>, arg: GeminiPartialArg): void {
  const keys = arg.jsonPath ? parseJsonPath(arg.jsonPath) : undefined;
  const found = valueOf(arg);
  // A vendor-chosen key must never reach an object's prototype.
  if (!keys || !found || keys.includes('__proto__')) return;
  let node: Container = args;
  for (let i = 0; i < keys.length - 1; i++) {
    const key = keys[i];
    const existing: unknown = (node as Record<string | number, unknown>)[key];
    const next: Container = typeof existing === 'object' && existing !== null ? (existing as Container) : typeof keys[i + 1] === 'number' ? [] : {};
    (node as Record<string | number, unknown>)[key] = next;
    node = next;
  }
  const last = keys[keys.length - 1];
  const target = node as Record<string | number, unknown>;
  const previous = target[last];
  target[last] = typeof found.value === 'string' && typeof previous === 'string' ? previous + found.value : found.value;
}
