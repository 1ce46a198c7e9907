/**
 * Turns a scenario's endpoints into the simulated transport's fault models (the same models
 * the msw handlers and the fault server use) and answers "was this endpoint up at time t?"
 * from the schedules alone, which is what the report's availability figures are measured by.
 */
import { seededRandom, type Clock } from '@switchyard/core';
import { createFaultModel } from './faults/fault-model.js';
import type { FaultName } from './faults/fault-catalogue.js';
import { allOf, anyOf, between, brownout, fixed, flapping, lognormal, uniform, type Latency, type Schedule } from './faults/schedules.js';
import type { FaultRule, FaultWindow, LatencySpec, Scenario, ScenarioEndpoint } from './scenario.js';
import type { SimulatedEndpoint } from './simulated-transport.js';

/** Faults that fail every request they answer for reasons of the vendor (not the request's own). */
const OUTAGE_FAULTS = new Set<FaultName>(['rate-limited', 'server-error', 'unavailable', 'overloaded', 'reset', 'hang', 'stream-cut', 'stream-stall', 'stream-error', 'key-invalid', 'out-of-credit']);

export function toLatencyFn(spec: LatencySpec): Latency {
  switch (spec.type) {
    case 'fixed':
      return fixed(spec.ms);
    case 'uniform':
      return uniform(spec.minMs, spec.maxMs);
    case 'lognormal':
      return lognormal({ medianMs: spec.medianMs, sigma: spec.sigma, maxMs: spec.maxMs });
  }
}

/** Whether the time part of a window (everything but brownout) holds at `t` ms from the start. */
export function windowHolds(when: FaultWindow, t: number): boolean {
  if (when.between && !when.between.some(([a, b]) => t >= a && t < b)) return false;
  if (when.from !== undefined && t < when.from) return false;
  if (when.until !== undefined && t >= when.until) return false;
  if (when.every) {
    const { everyMs, forMs, offsetMs } = when.every;
    if (t < offsetMs || (t - offsetMs) % everyMs >= forMs) return false;
  }
  return true;
}

/** The window as a fault-model schedule on the clock, where the scenario started at `startAt`. */
export function toSchedule(when: FaultWindow, startAt: number): Schedule {
  const parts: Schedule[] = [];
  if (when.between) parts.push(anyOf(...when.between.map(([a, b]) => between(startAt + a, startAt + b))));
  if (when.from !== undefined || when.until !== undefined) parts.push(between(startAt + (when.from ?? 0), startAt + (when.until ?? Number.POSITIVE_INFINITY)));
  if (when.every) parts.push(flapping({ periodMs: when.every.everyMs, downMs: when.every.forMs, startMs: startAt + when.every.offsetMs }));
  // Brownout last: the random draw only happens inside the window, so windows never shift the draws of other rules.
  if (when.brownout !== undefined && when.brownout < 1) parts.push(brownout(when.brownout));
  return parts.length === 1 ? parts[0]! : allOf(...parts);
}

/** True when the rule fails every request it meets while its window holds. */
function isOutage(rule: FaultRule): boolean {
  return OUTAGE_FAULTS.has(rule.fault) && (rule.when.brownout === undefined || rule.when.brownout >= 1) && rule.times === undefined;
}

/** An endpoint is up at `t` while at least one of its keys is not under a total outage. */
export function endpointUpAt(endpoint: ScenarioEndpoint, t: number): boolean {
  const outages = endpoint.faults.filter(isOutage).filter((r) => windowHolds(r.when, t));
  if (outages.length === 0) return true;
  for (let key = 0; key < endpoint.keys; key++) {
    if (!outages.some((r) => r.keys === undefined || r.keys.includes(key))) return true;
  }
  return false;
}

/** The simulated API keys of an endpoint: distinct, recognisable, and never real secrets. */
export function simulatedKeys(endpoint: ScenarioEndpoint): string[] {
  return Array.from({ length: endpoint.keys }, (_, i) => `sim-${endpoint.name}-key${i}-x`);
}

function ruleSeed(seed: number, endpointIndex: number, ruleIndex: number): number {
  return (Math.imul(seed + 1, 2_654_435_761) ^ Math.imul(endpointIndex + 1, 40_503) ^ Math.imul(ruleIndex + 7, 97)) >>> 0;
}

/** Fault models for every endpoint of the scenario, on `clock`, seeded from the scenario. */
export function buildSimulatedEndpoints(scenario: Scenario, clock: Clock, startAt: number): SimulatedEndpoint[] {
  return scenario.endpoints.map((endpoint, e) => {
    const answer = { tokens: endpoint.tokens, tokenDelay: toLatencyFn(endpoint.tokenDelay) };
    const rules = endpoint.faults.map((rule, r) => ({
      model: createFaultModel(
        endpoint.vendor,
        rule.fault,
        {
          ...answer,
          when: toSchedule(rule.when, startAt),
          ...(rule.times !== undefined ? { times: rule.times } : {}),
          ...(rule.retryAfterS !== undefined ? { retryAfterS: rule.retryAfterS } : {}),
          ...(rule.status !== undefined ? { status: rule.status } : {}),
          ...(rule.afterTokens !== undefined ? { afterTokens: rule.afterTokens } : {}),
          ...(rule.firstTokenMs !== undefined ? { firstTokenMs: rule.firstTokenMs } : {}),
          ...(rule.latency !== undefined ? { latency: toLatencyFn(rule.latency) } : {}),
        },
        { clock, random: seededRandom(ruleSeed(scenario.seed, e, r)) },
      ),
      ...(rule.keys ? { keys: rule.keys } : {}),
    }));
    const healthy = createFaultModel(endpoint.vendor, 'ok', { ...answer, latency: toLatencyFn(endpoint.latency) }, { clock, random: seededRandom(ruleSeed(scenario.seed, e, -1)) });
    return { name: endpoint.name, baseUrl: endpoint.baseUrl, apiKeys: simulatedKeys(endpoint), rules, healthy };
  });
}
