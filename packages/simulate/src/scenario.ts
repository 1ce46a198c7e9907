/**
 * The simulation scenario: endpoints with their fault schedules, logical models, traffic and
 * duration. `validateScenario()` turns a parsed YAML/JSON object into a checked Scenario with
 * every duration in milliseconds; bad input is a coded SwitchyardError naming the field.
 */
import { SIMULATION_ERRORS } from './error-codes.js';
import { SwitchyardError, type DeploymentConfig, type ModelsConfig } from '@switchyard/core';
import { FAULT_NAMES, type FaultName } from './faults/fault-catalogue.js';
import type { Vendor } from './faults/vendor-wire.js';
import { parseSimDuration } from './duration.js';

export const SCENARIO_ERROR_CODE = SIMULATION_ERRORS.SWITCHYARD_ERR_SIMULATION_SCENARIO;

/** When a fault rule is active; every given condition must hold. Times are from the start. */
export interface FaultWindow {
  /** Active inside any of these [start, end) windows. */
  between?: [number, number][];
  from?: number;
  until?: number;
  /** Periodic bursts: active for `forMs` at the start of every `everyMs`, from `offsetMs`. */
  every?: { everyMs: number; forMs: number; offsetMs: number };
  /** Share (0..1) of requests the fault answers while the rest of the window holds. */
  brownout?: number;
}

export interface FaultRule {
  fault: FaultName;
  when: FaultWindow;
  /** Key indexes (0-based) the rule applies to; undefined = every key. */
  keys?: number[];
  times?: number;
  retryAfterS?: number;
  status?: number;
  afterTokens?: number;
  firstTokenMs?: number;
  latency?: LatencySpec;
}

export type LatencySpec =
  | { type: 'fixed'; ms: number }
  | { type: 'uniform'; minMs: number; maxMs: number }
  | { type: 'lognormal'; medianMs: number; sigma: number; maxMs: number };

export interface ScenarioEndpoint {
  name: string;
  provider: string;
  /** The wire the fault models speak (from the provider id unless given). */
  vendor: Vendor;
  baseUrl: string;
  /** How many API keys the endpoint has (candidates `endpoint/model#i`). */
  keys: number;
  models?: string[];
  /** Latency of a healthy answer (to the first byte). */
  latency: LatencySpec;
  /** Delay between streamed tokens. */
  tokenDelay: LatencySpec;
  /** Tokens in a healthy answer. */
  tokens: number;
  faults: FaultRule[];
  options?: Record<string, unknown>;
}

export interface ScenarioTraffic {
  intervalMs: number;
  /** Each gap is `intervalMs * (1 ± jitter)`, uniformly. */
  jitter: number;
  /** Share of requests sent with `stream: true`. */
  streamShare: number;
  /** Logical models requested, with their shares (summing to 1). */
  models: { model: string; share: number }[];
  /** Request deadline (core default when absent). */
  deadlineMs?: number;
}

/** A plugin the scenario asks for, loaded by the caller (the CLI), never by the simulation. */
export type ScenarioPluginSpec = string | { use: string; options?: Record<string, unknown> };

export interface Scenario {
  name: string;
  description?: string;
  seed: number;
  durationMs: number;
  bucketMs: number;
  traffic: ScenarioTraffic;
  endpoints: ScenarioEndpoint[];
  models: ModelsConfig;
  plugins: ScenarioPluginSpec[];
}

const VENDOR_OF_PROVIDER: Record<string, Vendor> = { openai: 'openai', azure: 'openai', 'openai-compatible': 'openai', anthropic: 'anthropic', gemini: 'gemini' };
const VERSION_SEGMENT: Record<Vendor, string> = { openai: '/v1', anthropic: '/v1', gemini: '/v1beta' };
const NICE_BUCKETS = [60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];
const MAX_DEFAULT_BUCKETS = 500;

function fail(path: string, message: string): never {
  throw new SwitchyardError('config', `scenario ${path}: ${message}`, { code: SCENARIO_ERROR_CODE, path });
}

type Obj = Record<string, unknown>;

function object(value: unknown, path: string): Obj {
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail(path, 'expected a mapping');
  return value as Obj;
}

function onlyKeys(value: Obj, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${path}.${key}`, `unknown field (known: ${allowed.join(', ')})`);
}

function duration(value: unknown, path: string, { positive = false } = {}): number {
  const ms = parseSimDuration(value);
  if (ms === undefined) fail(path, `expected a duration like 30s, 2d3h or 250ms, got ${JSON.stringify(value)}`);
  if (positive && ms <= 0) fail(path, 'must be longer than 0');
  return ms;
}

function share(value: unknown, path: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) fail(path, `expected a share between 0 and 1, got ${JSON.stringify(value)}`);
  return value;
}

function integer(value: unknown, path: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) fail(path, `expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  return value;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') fail(path, 'expected a non-empty string');
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'expected a list');
  return value;
}

function latency(value: unknown, path: string): LatencySpec {
  if (typeof value === 'number' || typeof value === 'string') return { type: 'fixed', ms: duration(value, path) };
  const o = object(value, path);
  if ('median' in o) {
    onlyKeys(o, path, ['median', 'sigma', 'max']);
    const sigma = o.sigma === undefined ? 0.5 : o.sigma;
    if (typeof sigma !== 'number' || !(sigma >= 0 && sigma <= 3)) fail(`${path}.sigma`, 'expected a number between 0 and 3');
    return { type: 'lognormal', medianMs: duration(o.median, `${path}.median`), sigma, maxMs: o.max === undefined ? Number.POSITIVE_INFINITY : duration(o.max, `${path}.max`) };
  }
  onlyKeys(o, path, ['min', 'max']);
  if (o.min === undefined || o.max === undefined) fail(path, 'expected a duration, { median, sigma?, max? } or { min, max }');
  const minMs = duration(o.min, `${path}.min`);
  const maxMs = duration(o.max, `${path}.max`);
  if (minMs > maxMs) fail(`${path}.min`, 'must not exceed max');
  return { type: 'uniform', minMs, maxMs };
}

function window(value: unknown, path: string): FaultWindow {
  if (value === undefined) return {};
  const o = object(value, path);
  onlyKeys(o, path, ['between', 'from', 'until', 'every', 'for', 'offset', 'brownout']);
  const w: FaultWindow = {};
  if (o.between !== undefined) {
    const raw = list(o.between, `${path}.between`);
    if (raw.length === 0) fail(`${path}.between`, 'expected [start, end] or a list of them');
    const several = raw.every(Array.isArray);
    w.between = (several ? raw : [raw]).map((pair, i) => {
      const p = several ? `${path}.between[${i}]` : `${path}.between`;
      const items = list(pair, p);
      if (items.length !== 2) fail(p, 'expected [start, end]');
      const start = duration(items[0], `${p}[0]`);
      const end = duration(items[1], `${p}[1]`);
      if (end <= start) fail(p, 'end must be after start');
      return [start, end] as [number, number];
    });
  }
  if (o.from !== undefined) w.from = duration(o.from, `${path}.from`);
  if (o.until !== undefined) w.until = duration(o.until, `${path}.until`);
  if (o.every !== undefined || o.for !== undefined || o.offset !== undefined) {
    if (o.every === undefined || o.for === undefined) fail(`${path}.every`, 'periodic bursts need both every and for');
    const everyMs = duration(o.every, `${path}.every`, { positive: true });
    const forMs = duration(o.for, `${path}.for`);
    if (forMs > everyMs) fail(`${path}.for`, 'must not exceed every');
    w.every = { everyMs, forMs, offsetMs: o.offset === undefined ? 0 : duration(o.offset, `${path}.offset`) };
  }
  if (o.brownout !== undefined) w.brownout = share(o.brownout, `${path}.brownout`);
  return w;
}

const RULE_FIELDS = ['fault', 'when', 'key', 'keys', 'times', 'retryAfter', 'status', 'afterTokens', 'firstToken', 'latency'] as const;

function faultRule(value: unknown, path: string, keys: number): FaultRule {
  const o = object(value, path);
  onlyKeys(o, path, RULE_FIELDS);
  const fault = o.fault;
  if (typeof fault !== 'string' || !(FAULT_NAMES as readonly string[]).includes(fault)) fail(`${path}.fault`, `unknown fault ${JSON.stringify(fault)} (known: ${FAULT_NAMES.join(', ')})`);
  const rule: FaultRule = { fault: fault as FaultName, when: window(o.when, `${path}.when`) };
  if (o.key !== undefined && o.keys !== undefined) fail(`${path}.keys`, 'give key or keys, not both');
  const keyList = o.key !== undefined ? [o.key] : o.keys !== undefined ? list(o.keys, `${path}.keys`) : undefined;
  if (keyList) {
    rule.keys = keyList.map((k, i) => integer(k, `${path}.${o.key !== undefined ? 'key' : `keys[${i}]`}`, 0));
    for (const k of rule.keys) if (k >= keys) fail(`${path}.key`, `key index ${k} does not exist (the endpoint has ${keys} key${keys === 1 ? '' : 's'}, indexes from 0)`);
  }
  if (o.times !== undefined) rule.times = integer(o.times, `${path}.times`, 1);
  if (o.retryAfter !== undefined) rule.retryAfterS = duration(o.retryAfter, `${path}.retryAfter`) / 1_000;
  if (o.status !== undefined) rule.status = integer(o.status, `${path}.status`, 100);
  if (o.afterTokens !== undefined) rule.afterTokens = integer(o.afterTokens, `${path}.afterTokens`, 0);
  if (o.firstToken !== undefined) rule.firstTokenMs = duration(o.firstToken, `${path}.firstToken`);
  if (o.latency !== undefined) rule.latency = latency(o.latency, `${path}.latency`);
  return rule;
}

const ENDPOINT_FIELDS = ['name', 'provider', 'vendor', 'baseUrl', 'keys', 'models', 'latency', 'tokenDelay', 'tokens', 'faults', 'options'] as const;

function endpoint(value: unknown, path: string): ScenarioEndpoint {
  const o = object(value, path);
  onlyKeys(o, path, ENDPOINT_FIELDS);
  const name = text(o.name, `${path}.name`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) fail(`${path}.name`, 'use letters, digits, ".", "_" and "-" only');
  const provider = text(o.provider, `${path}.provider`);
  const vendor = o.vendor === undefined ? VENDOR_OF_PROVIDER[provider] : (o.vendor as Vendor);
  if (!vendor || !(vendor in VERSION_SEGMENT)) {
    fail(o.vendor === undefined ? `${path}.provider` : `${path}.vendor`, `no fault wire for ${JSON.stringify(o.vendor ?? provider)}: set vendor to openai, anthropic or gemini (the wire format the provider speaks)`);
  }
  const keys = o.keys === undefined ? 1 : integer(o.keys, `${path}.keys`, 1);
  let baseUrl = `https://${name.toLowerCase()}.simulated.invalid${VERSION_SEGMENT[vendor]}`;
  if (o.baseUrl !== undefined) {
    baseUrl = text(o.baseUrl, `${path}.baseUrl`);
    if (!/^https?:\/\/[^/]+/.test(baseUrl)) fail(`${path}.baseUrl`, 'expected an http(s) URL');
  }
  const models = o.models === undefined ? undefined : list(o.models, `${path}.models`).map((m, i) => text(m, `${path}.models[${i}]`));
  const tokens = o.tokens === undefined ? 8 : integer(o.tokens, `${path}.tokens`, 1);
  const faults = o.faults === undefined ? [] : list(o.faults, `${path}.faults`).map((f, i) => faultRule(f, `${path}.faults[${i}]`, keys));
  return {
    name,
    provider,
    vendor,
    baseUrl,
    keys,
    models,
    latency: o.latency === undefined ? { type: 'fixed', ms: 0 } : latency(o.latency, `${path}.latency`),
    tokenDelay: o.tokenDelay === undefined ? { type: 'fixed', ms: 0 } : latency(o.tokenDelay, `${path}.tokenDelay`),
    tokens,
    faults,
    ...(o.options !== undefined ? { options: object(o.options, `${path}.options`) } : {}),
  };
}

const DEPLOYMENT_FIELDS = ['endpoint', 'model', 'priority', 'weight', 'contextWindow', 'capabilities', 'price'] as const;

function logicalModels(value: unknown, endpoints: ScenarioEndpoint[]): ModelsConfig {
  const byName = new Map(endpoints.map((e) => [e.name, e]));
  if (value === undefined) {
    // One logical model `chat` over every endpoint's first model; list order is the priority
    // (explicitly: a router puts deployments without a priority into one weighted tier).
    const chat = endpoints.map((e, i) => {
      if (!e.models?.length) fail(`endpoints[${i}].models`, 'needed when the scenario has no models mapping');
      return { endpoint: e.name, model: e.models[0]!, priority: i };
    });
    return { chat };
  }
  const o = object(value, 'models');
  const out: ModelsConfig = {};
  for (const [logical, raw] of Object.entries(o)) {
    const entries = list(raw, `models.${logical}`);
    if (entries.length === 0) fail(`models.${logical}`, 'needs at least one deployment');
    out[logical] = entries.map((entry, i) => {
      const path = `models.${logical}[${i}]`;
      const d = object(entry, path);
      onlyKeys(d, path, DEPLOYMENT_FIELDS);
      const endpointName = text(d.endpoint, `${path}.endpoint`);
      const target = byName.get(endpointName);
      if (!target) fail(`${path}.endpoint`, `no endpoint named "${endpointName}" (known: ${[...byName.keys()].join(', ')})`);
      const model = text(d.model, `${path}.model`);
      if (target.models && !target.models.includes(model)) fail(`${path}.model`, `endpoint "${endpointName}" serves ${target.models.join(', ')}, not "${model}"`);
      const deployment: DeploymentConfig = { endpoint: endpointName, model };
      if (d.priority !== undefined) deployment.priority = integer(d.priority, `${path}.priority`, 0);
      if (d.weight !== undefined) {
        if (typeof d.weight !== 'number' || !(d.weight > 0)) fail(`${path}.weight`, 'expected a positive number');
        deployment.weight = d.weight;
      }
      if (d.contextWindow !== undefined) deployment.contextWindow = integer(d.contextWindow, `${path}.contextWindow`, 1);
      if (d.capabilities !== undefined) deployment.capabilities = list(d.capabilities, `${path}.capabilities`).map((c, j) => text(c, `${path}.capabilities[${j}]`));
      if (d.price !== undefined) deployment.price = object(d.price, `${path}.price`) as unknown as DeploymentConfig['price'];
      return deployment;
    });
  }
  if (Object.keys(out).length === 0) fail('models', 'needs at least one logical model');
  return out;
}

function traffic(value: unknown, models: ModelsConfig): ScenarioTraffic {
  const o = object(value, 'traffic');
  onlyKeys(o, 'traffic', ['every', 'jitter', 'streamShare', 'model', 'models', 'deadline']);
  if (o.every === undefined) fail('traffic.every', 'required: the gap between two requests, e.g. 30s');
  const intervalMs = duration(o.every, 'traffic.every', { positive: true });
  const names = Object.keys(models);
  let mix: { model: string; share: number }[];
  if (o.model !== undefined && o.models !== undefined) fail('traffic.models', 'give model or models, not both');
  if (o.models !== undefined) {
    const m = object(o.models, 'traffic.models');
    const total = Object.values(m).reduce<number>((sum, v, i) => {
      if (typeof v !== 'number' || !(v > 0)) fail(`traffic.models.${Object.keys(m)[i]}`, 'expected a positive weight');
      return sum + v;
    }, 0);
    mix = Object.entries(m).map(([model, weight]) => ({ model, share: (weight as number) / total }));
  } else {
    mix = [{ model: o.model === undefined ? names[0]! : text(o.model, 'traffic.model'), share: 1 }];
  }
  for (const { model } of mix) if (!names.includes(model)) fail(o.models !== undefined ? `traffic.models.${model}` : 'traffic.model', `no logical model "${model}" (known: ${names.join(', ')})`);
  return {
    intervalMs,
    jitter: o.jitter === undefined ? 0 : share(o.jitter, 'traffic.jitter'),
    streamShare: o.streamShare === undefined ? 0 : share(o.streamShare, 'traffic.streamShare'),
    models: mix,
    ...(o.deadline !== undefined ? { deadlineMs: duration(o.deadline, 'traffic.deadline', { positive: true }) } : {}),
  };
}

function plugins(value: unknown): ScenarioPluginSpec[] {
  if (value === undefined) return [];
  return list(value, 'plugins').map((p, i) => {
    if (typeof p === 'string' && p.trim() !== '') return p;
    const o = object(p, `plugins[${i}]`);
    onlyKeys(o, `plugins[${i}]`, ['use', 'options']);
    return { use: text(o.use, `plugins[${i}].use`), ...(o.options !== undefined ? { options: object(o.options, `plugins[${i}].options`) } : {}) };
  });
}

/** The smallest round bucket that keeps the time series at most ~500 points long. */
export function defaultBucketMs(durationMs: number): number {
  return NICE_BUCKETS.find((b) => durationMs / b <= MAX_DEFAULT_BUCKETS) ?? Math.ceil(durationMs / MAX_DEFAULT_BUCKETS);
}

export function isScenario(value: unknown): value is Scenario {
  return typeof value === 'object' && value !== null && typeof (value as Scenario).durationMs === 'number' && Array.isArray((value as Scenario).endpoints) && typeof (value as Scenario).traffic?.intervalMs === 'number';
}

/** Checks a parsed scenario document and resolves its durations; throws coded errors. */
export function validateScenario(input: unknown): Scenario {
  const o = object(input, '(root)');
  onlyKeys(o, '(root)', ['name', 'description', 'seed', 'duration', 'traffic', 'endpoints', 'models', 'plugins', 'report']);
  if (o.duration === undefined) fail('duration', 'required: simulated time, e.g. 20d');
  const durationMs = duration(o.duration, 'duration', { positive: true });
  const rawEndpoints = list(o.endpoints, 'endpoints');
  if (rawEndpoints.length === 0) fail('endpoints', 'needs at least one endpoint');
  const endpoints = rawEndpoints.map((e, i) => endpoint(e, `endpoints[${i}]`));
  const seen = new Set<string>();
  endpoints.forEach((e, i) => {
    if (seen.has(e.name)) fail(`endpoints[${i}].name`, `duplicate endpoint name "${e.name}"`);
    seen.add(e.name);
  });
  const models = logicalModels(o.models, endpoints);
  if (o.traffic === undefined) fail('traffic', 'required: { every: 30s, ... }');
  const t = traffic(o.traffic, models);
  if (durationMs / t.intervalMs > 10_000_000) fail('traffic.every', `${Math.round(durationMs / t.intervalMs)} requests is more than this simulation runs (10 million)`);
  let bucketMs = defaultBucketMs(durationMs);
  if (o.report !== undefined) {
    const r = object(o.report, 'report');
    onlyKeys(r, 'report', ['bucket']);
    if (r.bucket !== undefined) bucketMs = duration(r.bucket, 'report.bucket', { positive: true });
    if (durationMs / bucketMs > 10_000) fail('report.bucket', 'gives more than 10 000 buckets: choose a longer one');
  }
  let seed = 1;
  if (o.seed !== undefined) seed = integer(o.seed, 'seed', 0);
  return {
    name: o.name === undefined ? 'simulation' : text(o.name, 'name'),
    ...(o.description !== undefined ? { description: text(o.description, 'description') } : {}),
    seed,
    durationMs,
    bucketMs,
    traffic: t,
    endpoints,
    models,
    plugins: plugins(o.plugins),
  };
}
