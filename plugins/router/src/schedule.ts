/**
 * Time-of-day routing: rules that apply between two local times in an IANA time zone (off-peak
 * hours, a region's business day), evaluated on the pipeline clock. Local time comes from
 * Intl.DateTimeFormat, so daylight-saving changes and half-hour zones are right; a window may
 * run past midnight (22:00–06:00), and `days` names the local day a window starts on (Friday's
 * 22:00–06:00 runs into Saturday morning). A rule is checked once per clock minute: every time
 * zone's minutes start on a UTC minute.
 */
import { SwitchyardError, type Candidate, type Pipeline } from '@switchyard/core';
import { WEEKDAYS, type ScheduleRule, type Strategy } from './options.js';

type Weekday = (typeof WEEKDAYS)[number];

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const MINUTE = 60_000;

/** Local weekday and minute of the day of `at` in `format`'s time zone. */
function localTime(format: Intl.DateTimeFormat, at: number): { day: number; minute: number } {
  let hour = 0;
  let minute = 0;
  let day = 0;
  for (const part of format.formatToParts(at)) {
    if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
    else if (part.type === 'weekday') day = WEEKDAYS.indexOf(part.value.slice(0, 3).toLowerCase() as Weekday);
  }
  return { day, minute: hour * 60 + minute };
}

class CompiledRule implements ActiveRule {
  private readonly format: Intl.DateTimeFormat;
  private readonly start: number;
  private readonly end: number;
  private readonly days?: ReadonlySet<number>;
  private readonly preferIndex?: ReadonlyMap<string, number>;
  private checkedMinute = Number.NaN;
  private active = false;

  constructor(readonly rule: ScheduleRule) {
    this.format = new Intl.DateTimeFormat('en-US', { timeZone: rule.timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', weekday: 'short' });
    this.start = minutesOf(rule.between[0]);
    this.end = minutesOf(rule.between[1]);
    if (rule.days) this.days = new Set(rule.days.map((d) => WEEKDAYS.indexOf(d)));
    if (rule.prefer) this.preferIndex = new Map(rule.prefer.map((p, i) => [p, i]));
  }

  /** Whether the window is open at `now` (recomputed once per clock minute). */
  isActive(now: number): boolean {
    const minute = Math.floor(now / MINUTE);
    if (minute !== this.checkedMinute) {
      this.checkedMinute = minute;
      this.active = this.opensAt(now);
    }
    return this.active;
  }

  appliesTo(model: string, tier: string | undefined): boolean {
    const { models, tiers } = this.rule;
    return (!models || models.includes(model)) && (!tiers || (tier !== undefined && tiers.includes(tier)));
  }

  /** Stable: preferred candidates first in the rule's order, the rest as the strategy left them. */
  preferred(ordered: Candidate[]): Candidate[] {
    const index = this.preferIndex;
    if (!index) return ordered;
    const rank = (c: Candidate) => index.get(c.deploymentId) ?? index.get(c.endpoint.name);
    const first = ordered.filter((c) => rank(c) !== undefined).sort((a, b) => rank(a)! - rank(b)!);
    if (first.length === 0) return ordered;
    return [...first, ...ordered.filter((c) => rank(c) === undefined)];
  }

  weightOf = (c: Candidate): number => this.rule.weights?.[c.deploymentId] ?? c.weight;

  get strategy(): Strategy | undefined {
    return this.rule.strategy;
  }

  private opensAt(now: number): boolean {
    const { day, minute } = localTime(this.format, now);
    const overnight = this.end < this.start;
    let startedOn: number;
    if (!overnight) {
      if (minute < this.start || minute >= this.end) return false;
      startedOn = day;
    } else if (minute >= this.start) startedOn = day;
    else if (minute < this.end) startedOn = (day + 6) % 7;
    else return false;
    return !this.days || this.days.has(startedOn);
  }
}

export interface ActiveRule {
  readonly rule: ScheduleRule;
  readonly strategy?: Strategy;
  weightOf(c: Candidate): number;
  preferred(ordered: Candidate[]): Candidate[];
}

export class Schedule {
  private readonly rules: CompiledRule[];

  constructor(rules: readonly ScheduleRule[]) {
    this.rules = rules.map((r) => new CompiledRule(r));
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** The first rule that applies to this request now, if any. */
  ruleFor(model: string, tier: string | undefined, now: number): ActiveRule | undefined {
    for (const r of this.rules) if (r.appliesTo(model, tier) && r.isActive(now)) return r;
    return undefined;
  }

  /** Names in `prefer` and `weights` must be configured: a typo would silently do nothing. */
  check(pipeline: Pipeline): void {
    const endpoints = new Set(pipeline.endpoints.map((e) => e.name));
    const deployments = new Set(Object.values(pipeline.models).flatMap((list) => list.map((d) => `${d.endpoint}/${d.model}`)));
    const models = new Set(Object.keys(pipeline.models));
    this.rules.forEach(({ rule }, i) => {
      const fail = (field: string, message: string) => {
        throw new SwitchyardError('plugin', `schedule.${i}.${field}: ${message} in rule "${rule.name}" (@switchyard/plugin-router)`, { code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: `schedule.${i}.${field}` });
      };
      for (const name of rule.prefer ?? []) if (!deployments.has(name) && !endpoints.has(name)) fail('prefer', `"${name}" is neither a deployment (endpoint/model) nor an endpoint`);
      for (const id of Object.keys(rule.weights ?? {})) if (!deployments.has(id)) fail('weights', `"${id}" is not a deployment (endpoint/model)`);
      for (const model of rule.models ?? []) if (!models.has(model)) fail('models', `"${model}" is not a configured model`);
    });
  }
}
