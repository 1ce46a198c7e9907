/**
 * Vendor fault handlers for msw: each is an `http.post` handler over a FaultModel, answering the
 * vendor's generation endpoint under `baseUrl` in the vendor's wire format. A fault that passes
 * (schedule inactive, `times` used up) returns nothing, so msw moves on to the next handler:
 * `[faults.openai.rateLimited({ times: 1 }), faults.openai.ok()]` composes the msw way.
 */
import { http, type HttpHandler } from 'msw';
import { seededRandom, systemClock, type Clock, type RandomSource } from '@switchyard/core';
import { createFaultModel, FAULT_NAMES, wireFor, type FaultEnv, type FaultModel, type FaultName, type FaultOptions, type FaultRequest, type Vendor } from '@switchyard/simulate';
import { planToResponse } from './plan-response.js';

export type FaultHandler = HttpHandler & { readonly fault: FaultModel };

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
export type FaultMethods = { [K in FaultName as Camel<K>]: (options?: FaultOptions) => FaultHandler };

export interface VendorFaults extends FaultMethods {
  readonly vendor: Vendor;
  readonly baseUrl: string;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** An msw handler for the named fault. */
  handler(name: FaultName, options?: FaultOptions): FaultHandler;
  /** The bare fault model (no msw), for in-process transports and the fault server. */
  model(name: FaultName, options?: FaultOptions): FaultModel;
}

export interface VendorFaultsOptions extends FaultEnv {
  /** Where the vendor lives (default: its public API base URL). */
  baseUrl?: string;
}

export async function toFaultRequest(request: Request): Promise<FaultRequest> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  const body = await request
    .clone()
    .json()
    .catch(() => undefined);
  return { method: request.method, url: request.url, headers, body };
}

/** Wraps a fault model as an msw handler for `baseUrl`. */
export function faultHandler(model: FaultModel, { baseUrl, clock = systemClock }: { baseUrl?: string; clock?: Clock } = {}): FaultHandler {
  const wire = wireFor(model.vendor);
  const base = (baseUrl ?? wire.defaultBaseUrl).replace(/\/+$/, '');
  const handler = http.post(`${base}/*`, async ({ request }) => {
    if (!wire.matches(request.url, base)) return undefined;
    const plan = model.decide(await toFaultRequest(request));
    if (!plan) return undefined;
    return planToResponse(plan, clock, request.signal);
  });
  return Object.assign(handler, { fault: model });
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Fault handlers for one vendor at one base URL, sharing a clock and a seeded random source. */
export function vendorFaults(vendor: Vendor, options: VendorFaultsOptions = {}): VendorFaults {
  const wire = wireFor(vendor);
  const env = { clock: options.clock ?? systemClock, random: options.random ?? seededRandom(1) };
  const baseUrl = (options.baseUrl ?? wire.defaultBaseUrl).replace(/\/+$/, '');
  const model = (name: FaultName, faultOptions: FaultOptions = {}) => createFaultModel(vendor, name, faultOptions, env);
  const handler = (name: FaultName, faultOptions: FaultOptions = {}) => faultHandler(model(name, faultOptions), { baseUrl, clock: env.clock });
  const methods = Object.fromEntries(FAULT_NAMES.map((name) => [camel(name), (o?: FaultOptions) => handler(name, o)])) as FaultMethods;
  return { vendor, baseUrl, clock: env.clock, random: env.random, handler, model, ...methods };
}

/** Ready-made fault handlers at each vendor's public base URL, on the system clock. */
export const faults: Record<Vendor, VendorFaults> = {
  openai: vendorFaults('openai'),
  anthropic: vendorFaults('anthropic'),
  gemini: vendorFaults('gemini'),
};
