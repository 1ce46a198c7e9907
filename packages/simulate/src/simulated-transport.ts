/**
 * An in-process core Transport answered by fault models: no sockets, no HTTP. Each endpoint
 * (found by the request URL's base) has an ordered list of fault rules; the first whose model
 * answers decides the FaultPlan, otherwise the endpoint's healthy model answers. Delays run on
 * the injected clock; resets and cuts reject as the production transport would (kind network),
 * hangs and stalls wait for the attempt's abort and reject with its reason.
 */
import { sleep, type Clock, type Transport, type TransportRequest, type TransportResponse } from '@switchyard/core';
import { transportError } from '@switchyard/core/wire';
import { halfOf, type FaultPlan } from './faults/fault-plan.js';
import type { FaultModel } from './faults/fault-model.js';
import type { FaultRequest } from './faults/vendor-wire.js';

export interface SimulatedFaultRule {
  model: FaultModel;
  /** Only requests sent with one of these key indexes (of `apiKeys`) meet this rule. */
  keys?: readonly number[];
}

export interface SimulatedEndpoint {
  name: string;
  /** The base URL the pipeline's endpoint uses; requests under it come here. */
  baseUrl: string;
  /** The endpoint's keys, to tell which one a request carries (for key-specific faults). */
  apiKeys?: readonly string[];
  rules: readonly SimulatedFaultRule[];
  /** Answers whatever no rule answered (an `ok` model with the endpoint's latency). */
  healthy: FaultModel;
}

export interface UpstreamCall {
  endpoint: string;
  keyIndex: number | undefined;
  /** The fault that answered, `ok` for the healthy model. */
  fault: string;
  at: number;
}

export interface SimulatedTransportOptions {
  clock: Clock;
  endpoints: readonly SimulatedEndpoint[];
  /** Sees every upstream call (the vendor's view). */
  onCall?: (call: UpstreamCall) => void;
}

export interface SimulatedTransport extends Transport {
  /** Upstream calls per endpoint name. */
  readonly calls: ReadonlyMap<string, number>;
}

const encoder = new TextEncoder();

function socketError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function parseBody(body: string | undefined): unknown {
  if (body === undefined || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

function keyIndexOf(endpoint: SimulatedEndpoint, request: FaultRequest): number | undefined {
  const keys = endpoint.apiKeys;
  if (!keys || keys.length === 0) return undefined;
  const carried = [...Object.values(request.headers), request.url];
  const index = keys.findIndex((key) => key.length > 0 && carried.some((v) => v === key || v === `Bearer ${key}` || v.includes(`key=${key}`)));
  return index >= 0 ? index : undefined;
}

async function* planBody(plan: Extract<FaultPlan, { kind: 'respond' }>, clock: Clock, signal: AbortSignal, state: { discarded: boolean }): AsyncGenerator<Uint8Array> {
  const last = plan.chunks.length - 1;
  try {
    for (let i = 0; i <= last && !state.discarded; i++) {
      const chunk = plan.chunks[i]!;
      await sleep(clock, chunk.delayMs, signal);
      yield encoder.encode(plan.end === 'cut' && i === last ? halfOf(chunk.data) : chunk.data);
    }
    if (state.discarded) return;
    if (plan.end === 'cut') throw socketError('UND_ERR_SOCKET', 'other side closed (simulated cut)');
    if (plan.end === 'stall') await untilAborted(signal);
  } catch (error) {
    throw transportError(error, signal);
  }
}

export function createSimulatedTransport(options: SimulatedTransportOptions): SimulatedTransport {
  const { clock, endpoints, onCall } = options;
  // Longest base first, so `https://x/v1beta` wins over `https://x`.
  const ordered = [...endpoints].sort((a, b) => b.baseUrl.length - a.baseUrl.length);
  const calls = new Map<string, number>(endpoints.map((e) => [e.name, 0]));

  function endpointFor(url: string): SimulatedEndpoint | undefined {
    return ordered.find((e) => url.startsWith(e.baseUrl.replace(/\/+$/, '')));
  }

  function decide(endpoint: SimulatedEndpoint, request: FaultRequest, keyIndex: number | undefined): { plan: FaultPlan; fault: string } {
    for (const rule of endpoint.rules) {
      if (rule.keys && (keyIndex === undefined || !rule.keys.includes(keyIndex))) continue;
      const plan = rule.model.decide(request);
      if (plan) return { plan, fault: rule.model.name };
    }
    return { plan: endpoint.healthy.decide(request)!, fault: 'ok' };
  }

  return {
    calls,
    async request(req: TransportRequest): Promise<TransportResponse> {
      const { signal } = req;
      try {
        if (signal.aborted) throw signal.reason;
        const endpoint = endpointFor(req.url);
        if (!endpoint) throw socketError('ENOTFOUND', `no simulated endpoint serves ${req.url}`);
        const request: FaultRequest = { method: req.method, url: req.url, headers: lowerCased(req.headers), body: parseBody(req.body) };
        const keyIndex = keyIndexOf(endpoint, request);
        const { plan, fault } = decide(endpoint, request, keyIndex);
        calls.set(endpoint.name, (calls.get(endpoint.name) ?? 0) + 1);
        onCall?.({ endpoint: endpoint.name, keyIndex, fault, at: clock.now() });
        if (plan.kind === 'hang') return await untilAborted(signal);
        await sleep(clock, plan.delayMs, signal);
        if (plan.kind === 'reset') throw socketError('ECONNRESET', 'read ECONNRESET (simulated reset)');
        const state = { discarded: false };
        return {
          status: plan.status,
          headers: lowerCased(plan.headers),
          body: planBody(plan, clock, signal, state),
          discard: () => {
            state.discarded = true;
          },
        };
      } catch (error) {
        throw transportError(error, signal);
      }
    },
  };
}

