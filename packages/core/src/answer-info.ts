/** What an answer tells its caller about who answered: stream info from a whole answer, backups. */
import type { StreamInfo } from './chat-stream.js';
import type { Candidate, ChatResponse } from './types.js';

/** A whole answer's info as the info of the stream it is replayed as (a cache hit, a degrade-stage answer). */
export function streamInfoOf(response: ChatResponse): StreamInfo {
  const s = response.switchyard;
  return {
    endpoint: s?.endpoint ?? 'none',
    deployment: s?.deployment ?? 'none',
    provider: s?.provider ?? 'none',
    attempts: s?.attempts ?? 0,
    model: response.model,
    degraded: s?.degraded,
    stale: s?.stale,
    cached: s?.cached,
    fallback: s?.fallback,
    queued: s?.queued,
    truncated: s?.truncated,
    dropped: s?.dropped,
    cacheLost: s?.cacheLost,
  };
}

/**
 * A backup answered: a degrade level's model, or a deployment outside the model's first
 * priority tier (deployments sharing the lowest priority are all primaries).
 */
export function isBackup(candidate: Candidate, configured: readonly Candidate[]): boolean {
  if (candidate.degradeLevel !== undefined) return true;
  let primary = Number.POSITIVE_INFINITY;
  for (const c of configured) if (c.priority < primary) primary = c.priority;
  return candidate.priority > primary;
}
