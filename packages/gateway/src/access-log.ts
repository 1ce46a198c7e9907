/**
 * One access line per gateway request: what the client asked, what answered, how it went.
 * The pipeline's `request:end` event carries the journey; the gateway adds the HTTP side.
 */
import type { CallerIdentity, Pipeline, RequestOutcome, RequestRecord, SwitchyardEvents } from '@switchyard/core';
import { attemptMoves, droppedSummary, requestOutcomeClass, tokenCounts, usageCostUsd, type RequestOutcomeClass } from '@switchyard/core/internal';
import type { LogFields } from './logger.js';

export type RequestEnd = RequestRecord;

export type AccessOutcome = RequestOutcomeClass;

/** Status reported for a request whose client went away before its answer was complete (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;

export function accessOutcome(end: RequestEnd | undefined, status: number, cancelled: boolean): AccessOutcome {
  if (cancelled) return 'cancelled';
  if (end) return requestOutcomeClass(end);
  return status >= 400 ? 'error' : 'success';
}

/** What the quota plugin billed a request's attempts, estimates included (`usage:billed`). */
interface RequestBill {
  costUsd: number;
  estimatedUsd: number;
}

/**
 * Keeps each gateway request's `request:end` (and, with plugin-quota, its attempts' bills)
 * until the gateway writes the access line.
 */
export class AccessLog {
  private readonly ends = new Map<string, RequestEnd>();
  private readonly bills = new Map<string, RequestBill>();
  /** What the translation policy did to a request (core's translation.ts): `deployment (feature)` per skip, features dropped. */
  private readonly translation = new Map<string, { skipped?: string[]; dropped?: string }>();
  private readonly open = new Set<string>();

  /** Listens on a pipeline; returns the detach function. */
  observe(pipeline: Pipeline): () => void {
    const onEnd = (end: RequestEnd) => {
      if (this.open.has(end.requestId)) this.ends.set(end.requestId, end);
    };
    const onBilled = (billed: SwitchyardEvents['usage:billed'][0]) => {
      if (!this.open.has(billed.requestId)) return;
      let bill = this.bills.get(billed.requestId);
      if (!bill) this.bills.set(billed.requestId, (bill = { costUsd: 0, estimatedUsd: 0 }));
      bill.costUsd += billed.costUsd;
      if (billed.estimated) bill.estimatedUsd += billed.costUsd;
    };
    const translation = (requestId: string) => {
      let entry = this.translation.get(requestId);
      if (!entry) this.translation.set(requestId, (entry = {}));
      return entry;
    };
    const onSkipped = (skipped: SwitchyardEvents['candidate:skipped'][0]) => {
      if (this.open.has(skipped.requestId)) (translation(skipped.requestId).skipped ??= []).push(`${skipped.candidate.deploymentId} (${skipped.feature})`);
    };
    const onDropped = (dropped: SwitchyardEvents['field:dropped'][0]) => {
      if (!this.open.has(dropped.requestId)) return;
      // A continuation's drops join the first answering attempt's.
      const entry = translation(dropped.requestId);
      const names = new Set([...(entry.dropped ? entry.dropped.split(', ') : []), ...droppedSummary(dropped.dropped).split(', ')]);
      entry.dropped = [...names].join(', ');
    };
    pipeline.events.on('request:end', onEnd);
    pipeline.events.on('usage:billed', onBilled);
    pipeline.events.on('candidate:skipped', onSkipped);
    pipeline.events.on('field:dropped', onDropped);
    return () => {
      pipeline.events.off('request:end', onEnd);
      pipeline.events.off('usage:billed', onBilled);
      pipeline.events.off('candidate:skipped', onSkipped);
      pipeline.events.off('field:dropped', onDropped);
    };
  }

  begin(requestId: string): void {
    this.open.add(requestId);
  }

  /** The access line's fields; forgets the request. */
  /** `model` and `errorCode` describe a request refused before routing (no `request:end`): the model it named, the code it was refused with. */
  finish(requestId: string, http: { route: string; status: number; cancelled: boolean; latencyMs: number; caller?: CallerIdentity; model?: string; errorCode?: string }): LogFields {
    const end = this.ends.get(requestId);
    const bill = this.bills.get(requestId);
    const translated = this.translation.get(requestId);
    if (translated) this.translation.delete(requestId);
    this.open.delete(requestId);
    this.ends.delete(requestId);
    if (bill) this.bills.delete(requestId);
    const outcome = accessOutcome(end, http.status, http.cancelled);
    const status = http.cancelled ? CLIENT_CLOSED_STATUS : http.status;
    const latencyMs = Math.round(http.latencyMs);
    // Who called (the audit line): the gateway key's id and name, never its secret.
    const { caller } = http;
    if (!end) {
      const line: LogFields = { event: 'access', requestId, route: http.route, outcome, status, latencyMs, gatewayKey: caller?.keyId, gatewayKeyName: caller?.keyName, team: caller?.team, model: http.model, errorCode: outcome === 'error' ? http.errorCode : undefined };
      if (translated?.skipped) line.skipped = translated.skipped.join(', ');
      return line;
    }
    const { attempts, response } = end;
    let answered: RequestEnd['attempts'][number] | undefined;
    let costUsd = 0;
    for (let i = attempts.length - 1; i >= 0; i--) {
      const attempt = attempts[i];
      if (end.ok && !answered && attempt.ok) answered = attempt;
      // Without plugin-quota's bills: the vendors' usage at the deployments' prices.
      if (!bill) costUsd += usageCostUsd(tokenCounts(attempt.usage), attempt.candidate.deployment.price);
    }
    if (bill) costUsd = bill.costUsd;
    const moves = attemptMoves(attempts);
    const tokens = tokenCounts(response?.usage ?? answered?.usage);
    // One literal with every field: building the line by assignments reshaped it on every request.
    const fields: LogFields = {
      event: 'access',
      requestId,
      route: http.route,
      outcome,
      status,
      latencyMs,
      gatewayKey: caller?.keyId,
      gatewayKeyName: caller?.keyName,
      team: caller?.team,
      model: end.model,
      tier: end.tier,
      stream: end.stream,
      endpoint: answered?.candidate.endpoint.name ?? response?.switchyard?.endpoint,
      upstreamModel: response?.model ?? answered?.candidate.model,
      attempts: attempts.length,
      failovers: moves.failovers,
      retries: moves.retries,
      degraded: end.degraded,
      ttftMs: answered?.ttftMs === undefined ? undefined : Math.round(answered.ttftMs),
      inputTokens: tokens.inputTokens,
      outputTokens: tokens.outputTokens,
      cachedTokens: tokens.cachedTokens,
      costUsd: usd(costUsd),
      // The part of costUsd that is our estimate (attempts the vendor billed without reporting usage).
      costEstimated: bill !== undefined && bill.estimatedUsd > 0,
      estimatedCostUsd: bill ? usd(bill.estimatedUsd) : 0,
    };
    if (translated?.skipped) fields.skipped = translated.skipped.join(', ');
    if (translated?.dropped) fields.dropped = translated.dropped;
    if (end.error) {
      fields.errorKind = end.error.kind;
      fields.errorCode = end.error.code;
      fields.error = end.error.message;
    }
    return fields;
  }
}

/** Dollars to 8 decimals; an unpriced request's 0 skips `toFixed` (a string and a parse: about 0.4 µs a field). */
function usd(value: number): number {
  return value === 0 ? 0 : Number(value.toFixed(8));
}
