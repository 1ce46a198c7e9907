/**
 * A route filter that keeps a candidate only as a last resort (health: unhealthy or
 * slow-starting) adds its id to the `demoted` request slot (@switchyard/contracts). The router
 * orders demoted candidates after all others, in the order the filter left them, so no
 * strategy undoes it.
 */
import { REQUEST_SLOT } from '@switchyard/contracts';
import type { RequestContext } from '@switchyard/core';

export function demotedIds(ctx: RequestContext): ReadonlySet<string> {
  return REQUEST_SLOT.demoted.get(ctx) ?? EMPTY;
}

const EMPTY: ReadonlySet<string> = new Set();
