/** Which request parameters a deployment's limits refuse, field by field. */
import type { Candidate, ChatRequest, ModelLimits } from '@switchyard/core';

export interface Violation {
  /** The request field, as a client wrote it (`max_tokens`, `temperature`, `stop`). */
  path: string;
  /** What about it, for this target: `4096 is above 1024`. */
  reason: string;
}

type RangeField = 'temperature' | 'top_p' | 'presence_penalty' | 'frequency_penalty';
const RANGES: readonly [RangeField, keyof ModelLimits][] = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['presence_penalty', 'presencePenalty'],
  ['frequency_penalty', 'frequencyPenalty'],
];

/** The first parameter of `request` that `limits` refuse, or undefined. */
export function violation(request: ChatRequest, limits: ModelLimits): Violation | undefined {
  const cap = limits.maxOutputTokens;
  if (cap !== undefined) {
    for (const field of ['max_completion_tokens', 'max_tokens'] as const) {
      const value = request[field];
      if (typeof value === 'number' && value > cap) return { path: field, reason: `${value} is above the output limit of ${cap}` };
    }
  }
  for (const [field, key] of RANGES) {
    const value = request[field];
    const range = limits[key] as [number, number] | undefined;
    if (range && typeof value === 'number' && (value < range[0] || value > range[1])) return { path: field, reason: `${value} is outside [${range[0]}, ${range[1]}]` };
  }
  if (limits.maxStop !== undefined && Array.isArray(request.stop) && request.stop.length > limits.maxStop) {
    return { path: 'stop', reason: `${request.stop.length} stop sequences, at most ${limits.maxStop} accepted` };
  }
  for (const path in limits.values) {
    const value = valueAt(request, path);
    const accepted = limits.values[path]!;
    if (value !== undefined && value !== null && !accepted.includes(String(value))) return { path, reason: `${JSON.stringify(value)} is not one of [${accepted.join(', ')}]` };
  }
  return undefined;
}

/** The value at a dotted path of the request (`thinking.type`), if every step is an object. */
function valueAt(request: ChatRequest, path: string): unknown {
  let at: unknown = request;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The limits of a candidate: the provider preset, then the plugin's per-provider limits, then its own. */
export function limitsOf(candidate: Candidate, presets: Readonly<Record<string, ModelLimits>>, providers: Readonly<Record<string, ModelLimits>>): ModelLimits {
  const own = candidate.deployment.limits;
  const preset = presets[candidate.provider];
  const configured = providers[candidate.provider];
  if (!preset && !configured) return own ?? {};
  const merged = Object.assign({}, preset, configured, own);
  // Accepted values merge field by field: a deployment that lists one field keeps the preset's others.
  if (preset?.values || configured?.values || own?.values) merged.values = Object.assign({}, preset?.values, configured?.values, own?.values);
  return merged;
}
