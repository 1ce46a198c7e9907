/**
 * A route filter that will shorten the prompt to fit a candidate's context window
 * (@switchyard/plugin-model-limits with `truncate`) adds the candidate's id to the
 * `shortenable` request slot (@switchyard/contracts). The router does not drop such a
 * candidate for its window.
 */
import { REQUEST_SLOT } from '@switchyard/contracts';
import type { RequestContext } from '@switchyard/core';

export function shortenableIds(ctx: RequestContext): ReadonlySet<string> {
  return REQUEST_SLOT.shortenable.get(ctx) ?? EMPTY;
}

const EMPTY: ReadonlySet<string> = new Set();
