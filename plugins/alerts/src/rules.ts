/**
 * Which pipeline events open and clear which incidents. Everything here runs inside event
 * listeners, so it only counts and hands work to the incident book without awaiting it.
 */
import { type TenantBudgetEvent } from '@switchyard/contracts';
import type { AttemptOutcome, Pipeline, RequestOutcome, SwitchyardError, SwitchyardEvents } from '@switchyard/core';
import { unansweredCause } from '@switchyard/core/internal';
import type { IncidentBook } from './incidents.js';
import { deploymentParts, RESOLVED_AS, type AlertName, type Notice, type Severity } from './notice.js';
import type { AlertsOptions } from './options.js';
import { SlidingCount } from './sliding-count.js';

interface Spec {
  alert: AlertName;
  /** The incident's severity (a resolved notice is sent as `info`, filtered by this one). */
  severity: Severity;
  deployment?: string;
  model?: string;
  message: string;
  details?: Record<string, unknown>;
  /** What makes this incident distinct from others of the same alert. */
  subject: string;
}

export function watchPipeline(pipeline: Pipeline, options: AlertsOptions, book: IncidentBook, onError: (error: unknown) => void): () => void {
  const { events, clock } = pipeline;
  const at = () => new Date(clock.now()).toISOString();
  const build = (spec: Spec, state: Notice['state']): Notice => {
    const parts = deploymentParts(spec.deployment);
    return {
      alert: state === 'resolved' ? (RESOLVED_AS[spec.alert] ?? spec.alert) : spec.alert,
      incident: spec.alert,
      severity: state === 'resolved' ? 'info' : spec.severity,
      incidentSeverity: spec.severity,
      state,
      ...parts,
      model: spec.model ?? parts.model,
      message: spec.message,
      at: at(),
      details: spec.details ?? {},
      dedupKey: `${spec.alert}:${spec.subject}`,
      reminder: false,
    };
  };
  const fire = (spec: Spec, oneShot = false) => void book.fire(build(spec, 'firing'), { oneShot }).catch(onError);
  const resolve = (spec: Spec) => {
    const key = `${spec.alert}:${spec.subject}`;
    // Most successes clear nothing: skip the store read unless this instance saw the incident fire.
    // Alerts whose end is an event of its own resolve here even when another instance (or the pipeline before a reload) saw them fire.
    if (book.isFiring(key) || RESOLVED_AS[spec.alert] !== undefined || spec.alert === 'tenant-budget') void book.resolve(build(spec, 'resolved')).catch(onError);
  };

  const rate = new SlidingCount(options.successRate.windowMs);
  const limited = new SlidingCount(options.rateLimited.windowMs);
  const degradedCount = new SlidingCount(options.degraded.windowMs);
  const allFailed = new SlidingCount(options.allCandidatesFailed.windowMs);
  const describe = (e?: SwitchyardError) => (e ? { kind: e.kind, status: e.status, code: e.code, message: e.message } : undefined);

  const listeners: Record<string, (payload: never) => void> = {
    'breaker:open': ({ deployment, until, reason }: { deployment: string; until: number; reason: string }) =>
      fire({ alert: 'breaker-open', severity: 'critical', deployment, subject: deployment, message: `circuit breaker opened for ${deployment} (${reason}); traffic goes to the other deployments`, details: { reason, openUntil: new Date(until).toISOString() } }),
    'breaker:close': ({ deployment }: { deployment: string }) =>
      resolve({ alert: 'breaker-open', severity: 'critical', deployment, subject: deployment, message: `circuit breaker closed for ${deployment}: it answers again` }),
    'health:change': ({ deployment, healthy, score }: { deployment: string; healthy: boolean; score: number }) => {
      const spec: Spec = { alert: 'health-unhealthy', severity: 'warning', deployment, subject: deployment, message: healthy ? `${deployment} is healthy again (score ${score.toFixed(2)})` : `${deployment} is unhealthy (score ${score.toFixed(2)})`, details: { score } };
      if (healthy) resolve(spec);
      else fire(spec);
    },
    'quota:threshold': ({ scope, limit, level, used, max }: { scope: string; limit: string; level: number; used: number; max: number }) => {
      if (!options.budgetLevels.includes(level)) return;
      const deployment = scope.includes('/') ? scope.replace(/^[a-z]+:/, '') : undefined;
      fire({ alert: 'budget-threshold', severity: level >= 1 ? 'critical' : 'warning', deployment, subject: `${scope}:${limit}:${level}`, message: `budget ${scope} ${limit} reached ${Math.round(level * 100)} % (${used} of ${max})`, details: { scope, limit, level, used, max } }, true);
    },
    'budget:forecast': (e: SwitchyardEvents['budget:forecast'][0]) => {
      const period = e.limit === 'spendPerDay' ? 'day' : 'month';
      const when = e.exhaustsAt === undefined ? '' : new Date(e.exhaustsAt).toISOString();
      const message = e.exhausting
        ? `budget ${e.scope} ${e.limit} will run out at ${when} at this ${period}'s pace: $${e.spentUsd} spent, $${e.projectedUsd} projected of $${e.maxUsd}`
        : `budget ${e.scope} ${e.limit} is no longer on course to run out this ${period} ($${e.projectedUsd} projected of $${e.maxUsd})`;
      const spec: Spec = { alert: 'budget-forecast', severity: 'warning', subject: `${e.scope}:${e.limit}`, message, details: { scope: e.scope, limit: e.limit, maxUsd: e.maxUsd, spentUsd: e.spentUsd, projectedUsd: e.projectedUsd, exhaustsAt: when || null, windowEndsAt: new Date(e.windowEndsAt).toISOString() } };
      if (e.exhausting) fire(spec);
      else resolve(spec);
    },
    'balance:update': (e: SwitchyardEvents['balance:update'][0]) => {
      if (e.error) return; // an unreadable balance says nothing about the funds (key-parked covers a rejected key)
      const funds = e.balances.map((b) => `${b.available} ${b.currency}`).join(', ');
      const spec = (dry: boolean): Spec => ({
        alert: 'balance-low',
        severity: dry ? 'critical' : 'warning',
        deployment: e.endpoint,
        subject: `${e.endpoint}|${e.keyId}${dry ? '|dry' : ''}`,
        message: e.low
          ? `key ${e.keyId} of ${e.endpoint} has ${funds} left${dry ? ': the vendor refuses calls' : `, under the ${e.minBalance} threshold`}; top up the account`
          : `key ${e.keyId} of ${e.endpoint} has ${funds} again`,
        details: { endpoint: e.endpoint, keyId: e.keyId, provider: e.provider, balances: e.balances, minBalance: e.minBalance ?? null },
      });
      if (e.low && !e.dry) fire(spec(false));
      if (e.dry) fire(spec(true));
      else resolve(spec(true));
      if (!e.low) resolve(spec(false));
    },
    'attempt:end': (outcome: AttemptOutcome) => {
      const { candidate, error } = outcome;
      const now = clock.now();
      const dep = candidate.deploymentId;
      const key = candidate.keyId;
      const payment = error && (error.kind === 'payment' || error.vendorCode === 'insufficient_quota');
      if (error && (payment || outcome.outcome === 'key-failure')) {
        const reason = payment ? 'payment' : 'auth';
        const action = payment ? 'top up the account or raise its limit' : 'rotate the key';
        fire({ alert: 'key-parked', severity: 'critical', deployment: candidate.id, subject: key, message: `key ${key} of ${dep} is parked: ${payment ? 'insufficient balance' : 'the vendor rejected the key'} (${error.status ?? error.kind}); ${action}`, details: { reason, keyId: key, error: describe(error) } });
      } else if (outcome.ok) resolve({ alert: 'key-parked', severity: 'critical', deployment: candidate.id, subject: key, message: `key ${key} of ${dep} answers again` });

      if (outcome.outcome === 'ignored' || outcome.outcome === 'request-failure') return;
      // A 429 is the vendor pacing this gateway, not failing: the rate-limited rule counts it, and the
      // requests it leaves unanswered page as all-candidates-failed (one alert, not one per deployment).
      if (outcome.outcome !== 'rate-limited') {
        rate.add(dep, now, [1, outcome.ok ? 1 : 0]);
        const [total = 0, ok = 0] = rate.sum(dep, now);
        const target = options.successRate.target;
        const rateSpec = (state: string): Spec => ({ alert: 'success-rate-below', severity: 'critical', deployment: dep, subject: dep, message: `${dep} success rate ${((ok / total) * 100).toFixed(1)} % ${state} the ${target * 100} % objective over ${options.successRate.windowMs / 1000} s (${total} attempts)`, details: { successRate: ok / total, target, attempts: total } });
        if (total >= options.successRate.minAttempts) {
          if (ok / total < target) fire(rateSpec('is below'));
          else resolve(rateSpec('is back above'));
        }
      }

      if (outcome.outcome === 'rate-limited') limited.add(dep, now, [1]);
      const [limitedCount = 0] = limited.sum(dep, now);
      const limitSpec: Spec = { alert: 'rate-limited', severity: 'warning', deployment: dep, subject: dep, message: `${dep} answered 429 ${limitedCount} times within ${options.rateLimited.windowMs / 1000} s`, details: { count: limitedCount } };
      if (limitedCount >= options.rateLimited.count) fire(limitSpec);
      else if (outcome.ok) resolve(limitSpec);
    },
    'quality:change': ({ deployment, ok, failed, drift }: SwitchyardEvents['quality:change'][0]) => {
      const findings = [...(failed.length > 0 ? [`answers failed their checks: ${failed.join(', ')}`] : []), ...drift.map((d) => d.message)];
      const spec: Spec = { alert: 'quality-degraded', severity: 'warning', deployment, subject: deployment, message: ok ? `${deployment} answers its quality test set as its baseline did` : `${deployment} quality probe: ${findings.join('; ')}`, details: { failed, drift } };
      if (ok) resolve(spec);
      else fire(spec);
    },
    'health:pattern': (p: SwitchyardEvents['health:pattern'][0]) => {
      const subject = p.pattern === 'same-error' ? `${p.deployment}:${p.kind}:${p.code}:${p.status ?? ''}` : `${p.deployment}:timeouts`;
      const spec: Spec = { alert: 'error-pattern', severity: 'warning', deployment: p.deployment, subject, message: p.message, details: { pattern: p.pattern, kind: p.kind, code: p.code, status: p.status, count: p.count, since: new Date(p.since).toISOString() } };
      if (p.active) fire(spec);
      else resolve(spec);
    },
    'traffic:drift': ({ model, drifting, shares, windowMs, requests }: SwitchyardEvents['traffic:drift'][0]) => {
      const split = (pick: 'observed' | 'target') => Object.entries(shares).map(([id, s]) => `${id} ${Math.round(s[pick] * 100)} %`).join(', ');
      const spec: Spec = { alert: 'traffic-drift', severity: 'warning', model, subject: model, message: drifting ? `traffic of model "${model}" drifted from its target over ${windowMs / 1000} s (${requests} requests): ${split('observed')}; target ${split('target')}` : `traffic of model "${model}" is back within its target: ${split('observed')}`, details: { shares, windowMs, requests } };
      if (drifting) fire(spec);
      else resolve(spec);
    },
    // A caller's budget: one incident per threshold (soft: warning, hard: requests refused), resolved when the spend is below it again.
    'tenant:budget': (e: TenantBudgetEvent) => {
      const spend = `$${e.spentUsd.toFixed(2)} of $${e.limitUsd.toFixed(2)}`;
      const spec = (level: 'soft' | 'hard'): Spec => ({
        alert: 'tenant-budget',
        severity: level === 'hard' ? 'critical' : 'warning',
        subject: `${e.scope}:${e.id}:${e.period}:${level}`,
        message:
          e.level === 'none' || (e.level === 'soft' && level === 'hard')
            ? `the ${e.period} budget of ${e.scope} ${e.name} is below its ${level} threshold again (${spend} in ${e.window})`
            : `the ${e.period} budget of ${e.scope} ${e.name} reached its ${level} threshold: ${spend} spent in ${e.window}${level === 'hard' ? '; its requests are refused' : ''}`,
        details: { scope: e.scope, id: e.id, name: e.name, period: e.period, window: e.window, level, spentUsd: e.spentUsd, limitUsd: e.limitUsd },
      });
      if (e.level === 'hard') fire(spec('hard'));
      else resolve(spec('hard'));
      if (e.level === 'none') resolve(spec('soft'));
      else fire(spec('soft'));
    },
    degraded: ({ level }: { level: string }) => {
      const now = clock.now();
      degradedCount.add(level, now, [1]);
      const [count = 0] = degradedCount.sum(level, now);
      if (count >= options.degraded.count) fire({ alert: 'degraded', severity: 'warning', subject: level, message: `degrade level "${level}" answered ${count} requests within ${options.degraded.windowMs / 1000} s`, details: { level, count } });
    },
    'request:end': (outcome: RequestOutcome) => {
      const cause = outcome.ok ? undefined : unansweredCause(outcome.error);
      const failedEverywhere = cause !== undefined;
      // Cancelled requests and the caller's own mistakes or limits say nothing about the vendors.
      if (outcome.ok || failedEverywhere) allFailed.add(outcome.model, clock.now(), [1, failedEverywhere ? 1 : 0]);
      const [total = 0, failed = 0] = allFailed.sum(outcome.model, clock.now());
      const { count, share, windowMs } = options.allCandidatesFailed;
      const spec = (message: string, details?: Record<string, unknown>): Spec => ({ alert: 'all-candidates-failed', severity: 'critical', model: outcome.model, subject: outcome.model, message, details });
      const window = `within ${windowMs / 1000} s`;
      if (failed >= count && failed / total >= share) {
        const last = failedEverywhere ? { lastAttempts: outcome.attempts.map((a) => ({ attempt: a.attempt, candidate: a.candidate.id, outcome: a.outcome, error: describe(a.error) })) } : {};
        const heldBack = cause === 'held-back' ? { heldBack: describe(outcome.error) } : {};
        fire(spec(`no candidate of model "${outcome.model}" answered ${failed} of ${total} requests ${window} (each one failed, or was held back: rate-limited, cooling, resting)`, { failed, requests: total, windowMs, ...last, ...heldBack }));
      } else if (outcome.ok) {
        resolve(spec(`model "${outcome.model}" answers again (${failed} of ${total} requests found no candidate to answer ${window})`, { failed, requests: total, windowMs }));
        if (!outcome.degraded) for (const level of degradedCount.keys()) if ((degradedCount.sum(level, clock.now())[0] ?? 0) < options.degraded.count) resolve({ alert: 'degraded', severity: 'warning', subject: level, message: `degrade level "${level}" is no longer used often`, details: { level } });
      }
    },
  };
  for (const [name, fn] of Object.entries(listeners)) events.on(name as never, fn as never);
  return () => {
    for (const [name, fn] of Object.entries(listeners)) events.off(name as never, fn as never);
  };
}

