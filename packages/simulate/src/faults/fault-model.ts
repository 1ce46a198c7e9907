/**
 * A fault model: one named fault for one vendor, with its schedule, latency and counters. It
 * decides, per request and time, what the vendor does (a FaultPlan) or passes (undefined), and
 * knows nothing about msw or sockets, so an in-process transport can reuse it.
 */
import { SIMULATION_ERRORS } from '../error-codes.js';
import { SwitchyardError, systemClock, seededRandom, type Clock, type RandomSource } from '@switchyard/core';
import { FAULT_CATALOGUE, FAULT_NAMES, type FaultName, type FaultOptions } from './fault-catalogue.js';
import type { FaultPlan } from './fault-plan.js';
import { toLatency } from './schedules.js';
import { wireFor } from './wires.js';
import type { FaultRequest, Vendor } from './vendor-wire.js';

export interface FaultLogEntry {
  /** When the request arrived, on the fault's clock. */
  at: number;
  /** False when the fault passed (inactive schedule or `times` used up). */
  answered: boolean;
  stream: boolean;
  model: string;
}

export interface FaultModel {
  readonly vendor: Vendor;
  readonly name: FaultName;
  readonly options: Readonly<FaultOptions>;
  /** Requests this fault saw (the vendor's view), answered or passed. */
  readonly seen: number;
  /** Requests it answered with its fault. */
  readonly answered: number;
  readonly log: readonly FaultLogEntry[];
  decide(request: FaultRequest): FaultPlan | undefined;
  /** Forgets counters and log (e.g. between test cases). */
  reset(): void;
}

export interface FaultEnv {
  /** Drives schedules and delays (default: the system clock). */
  clock?: Clock;
  /** Drives brownouts and latency draws (default: seededRandom(1)). */
  random?: RandomSource;
}

function invalid(field: string, message: string): SwitchyardError {
  return new SwitchyardError('config', `chaos fault option "${field}" ${message}`, { code: SIMULATION_ERRORS.SWITCHYARD_ERR_CHAOS_OPTIONS, path: field });
}

function checkOptions(options: FaultOptions): void {
  const counts: (keyof FaultOptions)[] = ['times', 'tokens', 'afterTokens'];
  for (const field of counts) {
    const v = options[field];
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0)) throw invalid(field, 'must be a non-negative integer');
  }
  for (const field of ['retryAfterS', 'firstTokenMs'] as const) {
    const v = options[field];
    if (v !== undefined && !(typeof v === 'number' && v >= 0 && Number.isFinite(v))) throw invalid(field, 'must be a non-negative number');
  }
  if (options.tokens === 0) throw invalid('tokens', 'must be at least 1');
  if (options.text !== undefined && (!Array.isArray(options.text) || options.text.length === 0)) throw invalid('text', 'must be a non-empty array of strings');
}

export function isFaultName(name: unknown): name is FaultName {
  return typeof name === 'string' && (FAULT_NAMES as readonly string[]).includes(name);
}

export function createFaultModel(vendor: Vendor, name: FaultName, options: FaultOptions = {}, env: FaultEnv = {}): FaultModel {
  const wire = wireFor(vendor);
  if (!isFaultName(name)) {
    throw new SwitchyardError('config', `unknown chaos fault "${String(name)}" (known: ${FAULT_NAMES.join(', ')})`, { code: SIMULATION_ERRORS.SWITCHYARD_ERR_CHAOS_UNKNOWN_FAULT });
  }
  checkOptions(options);
  const clock = env.clock ?? systemClock;
  const random = env.random ?? seededRandom(1);
  const latency = toLatency(options.latency);
  const build = FAULT_CATALOGUE[name];
  let seen = 0;
  let answered = 0;
  let log: FaultLogEntry[] = [];

  return {
    vendor,
    name,
    options,
    get seen() {
      return seen;
    },
    get answered() {
      return answered;
    },
    get log() {
      return log;
    },
    reset() {
      seen = 0;
      answered = 0;
      log = [];
    },
    decide(request) {
      seen++;
      const at = clock.now();
      const stream = wire.isStream(request);
      const model = wire.modelOf(request);
      const active = (options.times === undefined || answered < options.times) && (options.when?.({ now: at, random, answered }) ?? true);
      log.push({ at, answered: active, stream, model });
      if (!active) return undefined;
      answered++;
      const plan = build({ wire, ctx: { request, stream, model, index: answered }, options, random });
      return plan.kind === 'hang' ? plan : { ...plan, delayMs: plan.delayMs + latency(random) };
    },
  };
}

/** The first model that answers wins; undefined when all pass. */
export function decideFirst(models: readonly FaultModel[], request: FaultRequest): FaultPlan | undefined {
  for (const model of models) {
    const plan = model.decide(request);
    if (plan) return plan;
  }
  return undefined;
}
