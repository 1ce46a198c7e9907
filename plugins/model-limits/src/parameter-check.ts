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
  return undefined;
}

/** The limits of a candidate: the provider preset, then the plugin's per-provider limits, then its own. */
export function limitsOf(candidate: Candidate, presets: Readonly<Record<string, ModelLimits>>, providers: Readonly<Record<string, ModelLimits>>): ModelLimits {
  const own = candidate.deployment.limits;
  const preset = presets[candidate.provider];
  const configured = providers[candidate.provider];
  if (!preset && !configured) return own ?? {};
  return Object.assign({}, preset, configured, own);
}
