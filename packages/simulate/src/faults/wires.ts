import { SIMULATION_ERRORS } from '../error-codes.js';
import { SwitchyardError } from '@switchyard/core';
import type { FaultRequest, Vendor, VendorWire, WireContext } from './vendor-wire.js';
import { anthropicWire } from './wire/anthropic.js';
import { geminiWire } from './wire/gemini.js';
import { openaiWire } from './wire/openai.js';
import { isResponsesRequest, openaiResponsesWire } from './wire/openai-responses.js';

/** One vendor with two APIs: each request is answered in the wire of the path it was sent to. */
function byPath(main: VendorWire, other: VendorWire, isOther: (url: string) => boolean): VendorWire {
  const pick = (request: FaultRequest) => (isOther(request.url) ? other : main);
  const of = (ctx: WireContext) => pick(ctx.request);
  return {
    vendor: main.vendor,
    defaultBaseUrl: main.defaultBaseUrl,
    matches: (url, baseUrl) => main.matches(url, baseUrl) || other.matches(url, baseUrl),
    isStream: (request) => pick(request).isStream(request),
    modelOf: (request) => pick(request).modelOf(request),
    endsWithPrefill: (request) => pick(request).endsWithPrefill(request),
    headers: (ctx) => of(ctx).headers(ctx),
    completion: (ctx, text, outputTokens) => of(ctx).completion(ctx, text, outputTokens),
    streamStart: (ctx) => of(ctx).streamStart(ctx),
    streamToken: (ctx, text, position) => of(ctx).streamToken(ctx, text, position),
    streamFinish: (ctx, outputTokens, text) => of(ctx).streamFinish(ctx, outputTokens, text),
    streamTerminator: (ctx) => of(ctx).streamTerminator(ctx),
    streamError: (ctx, sentTokens) => of(ctx).streamError(ctx, sentTokens),
    malformedEvent: (ctx) => of(ctx).malformedEvent(ctx),
    error: (ctx, name, options) => of(ctx).error(ctx, name, options),
    contentFilter: (ctx) => of(ctx).contentFilter(ctx),
  };
}

const WIRES: Record<Vendor, VendorWire> = { openai: byPath(openaiWire, openaiResponsesWire, isResponsesRequest), anthropic: anthropicWire, gemini: geminiWire };

export function wireFor(vendor: Vendor): VendorWire {
  const wire = WIRES[vendor];
  if (!wire) throw new SwitchyardError('config', `unknown chaos vendor "${String(vendor)}" (known: ${Object.keys(WIRES).join(', ')})`, { code: SIMULATION_ERRORS.SWITCHYARD_ERR_CHAOS_UNKNOWN_VENDOR });
  return wire;
}
