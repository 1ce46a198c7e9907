/**
 * The warning for an answer that could not be stored. A store at its cap refuses every answer
 * kept by default (OpenAI's `store` left out) until older ones expire: one warning per request
 * was as many log lines as requests. At most one a minute per key and cause (the error's code),
 * on the pipeline's clock; the next one says how many went unlogged since.
 */
import type { DialectContext } from '@switchyard/core/dialect';

const WARN_EVERY_MS = 60_000;
/** Causes remembered per store: past this many (keys × codes), forgotten and warned again. */
const MAX_CAUSES = 1024;

interface Quiet {
  until: number;
  unlogged: number;
}

const quietCauses = new WeakMap<object, Map<string, Quiet>>();

export function warnNotStored(context: DialectContext, error: unknown): void {
  const coded = (error as { code?: unknown } | undefined)?.code;
  const code = typeof coded === 'string' ? coded : undefined;
  let causes = quietCauses.get(context.store);
  if (!causes) quietCauses.set(context.store, (causes = new Map()));
  const cause = `${context.owner ?? ''}\u0000${code ?? ''}`;
  const now = context.clock.now();
  const last = causes.get(cause);
  if (last && now < last.until) {
    last.unlogged++;
    return;
  }
  if (causes.size >= MAX_CAUSES) causes.clear();
  causes.set(cause, { until: now + WARN_EVERY_MS, unlogged: 0 });
  const unlogged = last?.unlogged ?? 0;
  context.warn(
    { event: 'response_store_failed', requestId: context.requestId, ...(code ? { errorCode: code } : {}), error: (error as Error)?.message ?? String(error), ...(unlogged > 0 ? { unloggedSince: unlogged } : {}) },
    unlogged > 0 ? `storing a response failed (${unlogged} more of the same since the last warning)` : 'storing a response failed; the same failure is warned of at most once a minute',
  );
}
