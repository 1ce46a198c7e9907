/**
 * One log line per failed attempt and per state change the pipeline reports on its event bus:
 * breakers, health, error patterns, quality, traffic drift, keys, quota thresholds, degraded
 * answers and load shedding (reloads are logged where they happen: the gateway and the CLI).
 */
import { listenAll, type Pipeline } from '@switchyard/core';
import type { Logger } from './logger.js';

/** What an operator has to do about a parked key. */
function keyAction(reason: string): string {
  if (/balance|quota|payment|402/i.test(reason)) return 'top up the account';
  if (/reject|auth|401|403/i.test(reason)) return 'replace the key';
  return 'none: it comes back on its own';
}

export function logPipelineEvents(pipeline: Pipeline, logger: Logger): () => void {
  const now = () => pipeline.clock.now();
  return listenAll(pipeline.events, {
    'attempt:failed': (e) =>
      logger.warn(
        {
          event: 'attempt_failed',
          requestId: e.requestId,
          attempt: e.attempt,
          endpoint: e.candidate.endpoint.name,
          deployment: e.candidate.deploymentId,
          upstreamModel: e.candidate.model,
          keyId: e.candidate.keyId,
          errorKind: e.error.kind,
          errorCode: e.error.code,
          status: e.error.status,
          error: e.error.message,
          decision: e.decision,
          backoffMs: Math.round(e.backoffMs),
          backoffLevel: e.level,
          reason: e.reason,
        },
        'upstream attempt failed',
      ),
    'breaker:open': (e) => logger.warn({ event: 'breaker_open', deployment: e.deployment, reason: e.reason, openMs: Math.max(0, Math.round(e.until - now())), until: new Date(e.until).toISOString() }, 'circuit breaker opened'),
    'breaker:half-open': (e) => logger.info({ event: 'breaker_half_open', deployment: e.deployment }, 'circuit breaker half-open: probing'),
    'breaker:close': (e) => logger.info({ event: 'breaker_closed', deployment: e.deployment }, 'circuit breaker closed'),
    'health:change': (e) => (e.healthy ? logger.info : logger.warn).call(logger, { event: e.healthy ? 'health_healthy' : 'health_unhealthy', deployment: e.deployment, score: e.score }, `deployment ${e.healthy ? 'healthy' : 'unhealthy'}`),
    'key:state': (e) =>
      logger.warn(
        { event: e.condition === 'parked' ? 'key_parked' : e.condition === 'resting' ? 'key_resting' : 'key_paced', endpoint: e.endpoint, keyId: e.keyId, deployment: e.deployment, reason: e.reason, action: keyAction(e.reason), forMs: Math.max(0, Math.round(e.until - now())) },
        `key ${e.condition}: requests rotate to the next key`,
      ),
    'quota:threshold': (e) => logger.warn({ event: 'quota_threshold', scope: e.scope, limit: e.limit, threshold: e.level, used: e.used, max: e.max }, `budget ${Math.round(e.level * 100)}% used`),
    degraded: (e) => logger.warn({ event: 'degraded', requestId: e.requestId, degradeLevel: e.level }, 'answer served by the degrade stage'),
    'deployment:misconfigured': (e) => logger.error({ event: 'deployment_misconfigured', deployment: e.deployment, error: e.error.message }, 'deployment misconfigured'),
    'health:pattern': (e) =>
      (e.active ? logger.warn : logger.info).call(logger, { event: e.active ? 'error_pattern_started' : 'error_pattern_ended', deployment: e.deployment, pattern: e.pattern, errorKind: e.kind, errorCode: e.code, status: e.status, count: e.count }, e.message),
    'quality:change': (e) =>
      (e.ok ? logger.info : logger.warn).call(logger, { event: e.ok ? 'quality_ok' : 'quality_degraded', deployment: e.deployment, failed: e.failed, drift: e.drift.map((d) => d.signal) }, e.ok ? 'quality probe passes as its baseline did' : `quality probe: ${[...e.failed.map((f) => `${f} failed`), ...e.drift.map((d) => d.message)].join('; ')}`),
    'traffic:drift': (e) =>
      (e.drifting ? logger.warn : logger.info).call(logger, { event: e.drifting ? 'traffic_drift' : 'traffic_on_target', model: e.model, requests: e.requests, windowMs: e.windowMs, shares: e.shares }, e.drifting ? 'traffic shares drifted from their target' : 'traffic shares back on target'),
    'race:skipped': (e) =>
      logger.info({ event: 'race_skipped', requestId: e.requestId, deployment: e.candidate.deploymentId, keyId: e.candidate.keyId, reason: e.reason, partner: e.partner?.deploymentId, tier: e.tier }, `the last tier's race did not start: ${e.reason}`),
    'slo:change': (e) =>
      (e.state === 'breached' ? logger.warn : logger.info).call(
        logger,
        { event: e.state === 'breached' ? 'slo_breached' : 'slo_recovered', slo: e.name, scope: e.scope, successRate: e.successRate, samples: e.samples, target: e.target, recoverAt: e.recoverAt, actions: e.actions },
        e.state === 'breached' ? `objective missed: ${e.actions.join(', ')} until it recovers` : 'objective holds again: normal routing',
      ),
    'queue:replay': (e) => logger.info({ event: 'queue_replay', file: e.file, replayed: e.replayed, failed: e.failed, remaining: e.remaining }, 'queued requests replayed'),
    'request:shed': (e) => logger.warn({ event: 'load_shed', inFlight: e.inFlight, limit: e.limit }, 'request shed: too many in flight'),
    'idempotency:unshared': (e) => logger.warn({ event: 'idempotency_unshared', requestId: e.requestId, model: e.model, reason: e.reason }, 'Idempotency-Key not shared with the other gateways: a duplicate sent to another one may call the vendor again'),
    'plugin-error': (e) => logger.error({ event: 'plugin_error', plugin: e.plugin, stage: e.stage, error: (e.error as Error)?.message ?? String(e.error) }, 'a plugin failed'),
  });
}
