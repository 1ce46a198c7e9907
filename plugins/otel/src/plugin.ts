/**
 * The OpenTelemetry plugin: one span per request and a child span per attempt, with the GenAI
 * semantic-convention attributes; span events for retries, failovers, breakers and degraded
 * answers; the caller's `traceparent` continued and the attempt span's sent upstream. It uses
 * @opentelemetry/api only: spans go wherever the application's SDK sends them.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { definePlugin, listenAll, tapEveryCall, STAGE, type AttemptOutcome, type CallerIdentity, type Candidate, type CandidateRef, type ChatResponse, type Pipeline, type RequestContext, type RequestOutcome, type SwitchyardError } from '@switchyard/core';
import { attemptMoves, requestOutcomeClass, tokenCounts } from '@switchyard/core/internal';
import { z } from 'zod';
import { ATTR, operationName, providerName } from './genai.js';
import { toTraceparent, withRemoteParent } from './trace-context.js';

export const PLUGIN_NAME = '@switchyard/plugin-otel';
const VERSION = '0.1.0';

export const otelOptionsSchema = z
  .object({
    /** A tracer to use; default: `trace.getTracer('@switchyard/plugin-otel')` from the global provider. */
    tracer: z.custom<Tracer>((v) => typeof v === 'object' && v !== null && typeof (v as Tracer).startSpan === 'function', 'an OpenTelemetry Tracer').optional(),
    /** Send the attempt span's traceparent upstream (default true). */
    propagate: z.boolean().default(true),
  })
  .strict();

export type OtelOptions = z.output<typeof otelOptionsSchema>;
export type OtelOptionsInput = z.input<typeof otelOptionsSchema>;

interface LiveRequest {
  span: Span;
  attempts: Map<number, Span>;
  /** Candidate id of the attempt running now (breakers count per candidate): a breaker opening during it is this request's event. */
  currentDeployment?: string;
}

function serverAttributes(candidate: Candidate): Attributes {
  const base = candidate.endpoint.baseUrl;
  if (!base) return {};
  try {
    const url = new URL(base);
    return { [ATTR.serverAddress]: url.hostname, [ATTR.serverPort]: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return {};
  }
}

export function callerAttributes(caller: CallerIdentity): Attributes {
  const attributes: Attributes = { 'switchyard.gateway_key.id': caller.keyId };
  if (caller.keyName !== undefined) attributes['switchyard.gateway_key.name'] = caller.keyName;
  if (caller.team !== undefined) attributes['switchyard.team'] = caller.team;
  return attributes;
}

function errorAttributes(span: Span, error: SwitchyardError): void {
  span.setAttribute(ATTR.errorType, error.kind);
  if (error.status !== undefined) span.setAttribute(ATTR.httpStatus, error.status);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

function usageAttributes(span: Span, usage: AttemptOutcome['usage']): void {
  if (!usage) return;
  const tokens = tokenCounts(usage);
  span.setAttributes({ [ATTR.inputTokens]: tokens.inputTokens, [ATTR.outputTokens]: tokens.outputTokens });
}

function responseAttributes(span: Span, response: ChatResponse | undefined): void {
  if (!response) return;
  span.setAttribute(ATTR.responseModel, response.model);
  if (response.id) span.setAttribute(ATTR.responseId, response.id);
  const reasons = response.choices?.map((c) => c.finish_reason).filter((r): r is NonNullable<typeof r> => r !== null && r !== undefined);
  if (reasons?.length) span.setAttribute(ATTR.finishReasons, reasons);
  usageAttributes(span, response.usage);
}

export function traceRequests(pipeline: Pipeline, options: OtelOptions): () => void {
  const tracer = options.tracer ?? trace.getTracer(PLUGIN_NAME, VERSION);
  const live = new Map<string, LiveRequest>();

  pipeline.hooks.classify.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FIRST }, async (classification, ctx) => {
    const parent = withRemoteParent(context.active(), ctx.traceparent);
    const operation = operationName(ctx.kind);
    const span = tracer.startSpan(
      `${operation} ${ctx.model}`,
      { kind: SpanKind.INTERNAL, attributes: { [ATTR.operation]: operation, [ATTR.requestModel]: ctx.model, 'switchyard.request_id': ctx.id, 'switchyard.stream': ctx.stream, ...(classification.tier ? { 'switchyard.tier': classification.tier } : {}) } },
      parent,
    );
    // Who called: the gateway key's id, name and team (never its secret).
    if (ctx.caller) span.setAttributes(callerAttributes(ctx.caller));
    live.set(ctx.id, { span, attempts: new Map() });
    return classification;
  });

  // A call tap at FIRST that never answers: it opens the attempt span and hands its context upstream.
  tapEveryCall(pipeline, (hook) =>
    hook.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FIRST }, async (attempt, ctx: RequestContext) => {
      const request = live.get(ctx.id);
      if (!request) return undefined;
      const { candidate } = attempt;
      const span = tracer.startSpan(
        `${operationName(ctx.kind)} ${candidate.model}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [ATTR.operation]: operationName(ctx.kind),
            [ATTR.provider]: providerName(candidate.provider),
            [ATTR.requestModel]: candidate.model,
            'switchyard.attempt': attempt.number,
            'switchyard.endpoint': candidate.endpoint.name,
            'switchyard.deployment': candidate.deploymentId,
            'switchyard.key_id': candidate.keyId,
            'switchyard.initiator': attempt.initiator,
            ...serverAttributes(candidate),
          },
        },
        trace.setSpan(context.active(), request.span),
      );
      request.attempts.set(attempt.number, span);
      request.currentDeployment = candidate.id;
      if (options.propagate) attempt.traceparent = toTraceparent(span.spanContext()) ?? attempt.traceparent;
      return undefined;
    }),
  );

  pipeline.hooks.recordAttempt.tapPromise({ name: PLUGIN_NAME, stage: STAGE.LAST }, async (outcome, ctx) => {
    const span = live.get(ctx.id)?.attempts.get(outcome.attempt);
    if (!span) return;
    live.get(ctx.id)!.attempts.delete(outcome.attempt);
    span.setAttribute('switchyard.outcome', outcome.outcome);
    if (outcome.ttftMs !== undefined) span.setAttribute('switchyard.ttft_ms', outcome.ttftMs);
    usageAttributes(span, outcome.usage);
    if (outcome.error) errorAttributes(span, outcome.error);
    else span.setAttribute(ATTR.responseModel, outcome.candidate.model);
    span.end();
  });

  pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (outcome: RequestOutcome, ctx) => {
    const request = live.get(ctx.id);
    if (!request) return;
    live.delete(ctx.id);
    const { span } = request;
    const moves = attemptMoves(outcome.attempts);
    span.setAttributes({ 'switchyard.outcome': requestOutcomeClass(outcome), 'switchyard.attempts': outcome.attempts.length, 'switchyard.retries': moves.retries, 'switchyard.failovers': moves.failovers });
    const answered = [...outcome.attempts].reverse().find((a) => a.ok);
    if (answered) span.setAttributes({ [ATTR.provider]: providerName(answered.candidate.provider), 'switchyard.endpoint': answered.candidate.endpoint.name, 'switchyard.deployment': answered.candidate.deploymentId });
    if (outcome.degraded) span.setAttribute('switchyard.degraded', outcome.degraded);
    responseAttributes(span, outcome.response);
    if (!outcome.response?.usage && answered) usageAttributes(span, answered.usage);
    if (outcome.error) errorAttributes(span, outcome.error);
    // Attempts a plugin started and never reported (an abandoned hedge) end with the request.
    for (const attempt of request.attempts.values()) attempt.end();
    span.end();
  });

  const onRetry = (e: { requestId: string; attempt: number; candidate: CandidateRef; delayMs: number; reason: string }) =>
    live.get(e.requestId)?.span.addEvent('switchyard.retry', { 'switchyard.attempt': e.attempt, 'switchyard.deployment': e.candidate.deploymentId, 'switchyard.backoff_ms': e.delayMs, 'switchyard.reason': e.reason });
  const onFailover = (e: { requestId: string; from: CandidateRef; to: CandidateRef; error: SwitchyardError }) =>
    live.get(e.requestId)?.span.addEvent('switchyard.failover', { 'switchyard.from': e.from.deploymentId, 'switchyard.to': e.to.deploymentId, [ATTR.errorType]: e.error.kind });
  const onDegraded = (e: { requestId: string; level: string }) => live.get(e.requestId)?.span.addEvent('switchyard.degrade', { 'switchyard.level': e.level });
  const onBreaker = (state: string) => (e: { deployment: string; reason?: string }) => {
    for (const request of live.values()) if (request.currentDeployment === e.deployment) request.span.addEvent('switchyard.breaker', { 'switchyard.deployment': e.deployment, 'switchyard.breaker.state': state, ...(e.reason ? { 'switchyard.reason': e.reason } : {}) });
  };
  return listenAll(pipeline.events, {
    retry: onRetry,
    failover: onFailover,
    degraded: onDegraded,
    'breaker:open': onBreaker('open'),
    'breaker:half-open': onBreaker('half-open'),
    'breaker:close': onBreaker('closed'),
  });
}

export const otel = definePlugin<OtelOptions, OtelOptionsInput>({
  name: PLUGIN_NAME,
  version: VERSION,
  core: '^0.1.0',
  optionsSchema: otelOptionsSchema,
  apply(pipeline, options) {
    const detach = traceRequests(pipeline, options);
    pipeline.events.once('pipeline:close', detach);
  },
});
