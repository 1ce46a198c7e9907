/** W3C `traceparent` in and out, without a propagator: the plugin needs only @opentelemetry/api. */
import { isSpanContextValid, trace, TraceFlags, type Context, type SpanContext } from '@opentelemetry/api';

const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The caller's span as a remote parent, or `base` unchanged when the header is absent or invalid. */
export function withRemoteParent(base: Context, traceparent: string | undefined): Context {
  const match = traceparent ? TRACEPARENT_RE.exec(traceparent.trim().toLowerCase()) : null;
  if (!match) return base;
  const parent: SpanContext = { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(parent) ? trace.setSpanContext(base, parent) : base;
}

export function toTraceparent(span: SpanContext): string | undefined {
  if (!isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00'}`;
}
