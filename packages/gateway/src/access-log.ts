/**
 * One access line per gateway request: what the client asked, what answered, how it went.
 * The pipeline's `request:end` event carries the journey; the gateway adds the HTTP side.
 */
import { attemptMoves, requestOutcomeClass, tokenCounts, usageCostUsd, type Pipeline, type RequestOutcome, type RequestOutcomeClass } from '@switchyard/core';
import type { LogFields } from './logger.js';

export type RequestEnd = RequestOutcome & { requestId: string; tier?: string };

export type AccessOutcome = RequestOutcomeClass;

/** Status reported for a request whose client went away before its answer was complete (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;

export function accessOutcome(end: RequestEnd | undefined, status: number, cancelled: boolean): AccessOutcome {
  if (cancelled) return 'cancelled';
  if (end) return requestOutcomeClass(end);
  return status >= 400 ? 'error' : 'success';
}

/** Keeps each gateway request's `request:end` until the gateway writes the access line. */
export class AccessLog {
  private readonly ends = new Map<string, RequestEnd>();
  private readonly open = new Set<string>();

  /** Listens on a pipeline; returns the detach function. */
  observe(pipeline: Pipeline): () => void {
    const onEnd = (end: RequestEnd) => {
      if (this.open.has(end.requestId)) this.ends.set(end.requestId, end);
    };
    pipeline.events.on('request:end', onEnd);
    return () => pipeline.events.off('request:end', onEnd);
  }

  begin(requestId: string): void {
    this.open.add(requestId);
  }

  /** The access line's fields; forgets the request. */
  finish(requestId: string, http: { route: string; status: number; cancelled: boolean; latencyMs: number }): LogFields {
    const end = this.ends.get(requestId);
    this.open.delete(requestId);
    this.ends.delete(requestId);
    const outcome = accessOutcome(end, http.status, http.cancelled);
    const fields: LogFields = { event: 'access', requestId, route: http.route, outcome, status: http.cancelled ? CLIENT_CLOSED_STATUS : http.status, latencyMs: Math.round(http.latencyMs) };
    if (!end) return fields;
    const attempts = end.attempts;
    const answered = end.ok ? [...attempts].reverse().find((a) => a.ok) : undefined;
    const moves = attemptMoves(attempts);
    const usage = end.response?.usage ?? answered?.usage;
    const tokens = tokenCounts(usage);
    let costUsd = 0;
    for (const a of attempts) costUsd += usageCostUsd(tokenCounts(a.usage), a.candidate.deployment.price);
    Object.assign(fields, {
      model: end.model,
      tier: end.tier,
      stream: end.stream,
      endpoint: answered?.candidate.endpoint.name ?? end.response?.switchyard?.endpoint,
      upstreamModel: end.response?.model ?? answered?.candidate.model,
      attempts: attempts.length,
      failovers: moves.failovers,
      retries: moves.retries,
      degraded: end.degraded,
      ttftMs: answered?.ttftMs === undefined ? undefined : Math.round(answered.ttftMs),
      inputTokens: tokens.inputTokens,
      outputTokens: tokens.outputTokens,
      cachedTokens: tokens.cachedTokens,
      costUsd: Number(costUsd.toFixed(8)),
    });
    if (end.error) Object.assign(fields, { errorKind: end.error.kind, errorCode: end.error.code, error: end.error.message });
    return fields;
  }
}
