/**
 * A request none of whose candidates could be tried because policies held them all back
 * (cooldowns after 429s): the client is told when the soonest one is back.
 */
import { SwitchyardError } from './errors.js';
import type { CandidateHold } from './contract.js';

/** The failure for `holds` at `now`: a 429 when every hold is a rate limit, else a 503; undefined without holds. */
export function heldBackError(holds: readonly CandidateHold[], now: number, model: string): SwitchyardError | undefined {
  if (holds.length === 0) return undefined;
  let soonest = Infinity;
  for (const hold of holds) soonest = Math.min(soonest, hold.until);
  const retryAfterMs = Math.max(0, soonest - now);
  const seconds = Math.ceil(retryAfterMs / 1000);
  if (holds.every((h) => h.rateLimited)) {
    return new SwitchyardError('rate-limit', `every deployment of model "${model}" is rate-limited; the first is back in ${seconds} s`, { status: 429, retryAfterMs, retryable: true });
  }
  return new SwitchyardError('no-candidate', `no candidate can serve model "${model}" right now (held back by policies; the first is back in ${seconds} s)`, { status: 503, retryAfterMs });
}
