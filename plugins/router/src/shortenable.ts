/**
 * A cross-plugin convention: a route filter that will shorten the prompt to fit a candidate's
 * context window (@switchyard/plugin-model-limits with `truncate`) adds the candidate's id to
 * `ctx.state.shortenable`. The router does not drop such a candidate for its window.
 */
import type { RequestContext } from '@switchyard/core';

export function shortenableIds(ctx: RequestContext): ReadonlySet<string> {
  const value = ctx.state.shortenable;
  return value instanceof Set ? (value as Set<string>) : EMPTY;
}

const EMPTY: ReadonlySet<string> = new Set();
