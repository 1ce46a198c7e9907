/**
 * A cross-plugin convention: a route filter that keeps a candidate only as a last resort (health:
 * unhealthy or slow-starting) adds its id to `ctx.state.demoted`. The router orders demoted
 * candidates after all others, in the order the filter left them, so no strategy undoes it.
 */
import type { RequestContext } from '@switchyard/core';

export function demotedIds(ctx: RequestContext): ReadonlySet<string> {
  const value = ctx.state.demoted;
  return value instanceof Set ? (value as Set<string>) : EMPTY;
}

const EMPTY: ReadonlySet<string> = new Set();
