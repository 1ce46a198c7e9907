/**
 * The health plugin: passive scoring from every attempt, optional active probes (with a quality
 * test set compared against a baseline), error patterns as signals, and a route filter that puts
 * healthy deployments first without ever ejecting all of them.
 */
import { SERVICE } from '@switchyard/contracts';
import { definePlugin, provideService, STAGE } from '@switchyard/core';
import { HealthBook, registerHealth, type HealthMonitor } from './health-monitor.js';
import { healthOptionsSchema, type HealthOptions, type HealthOptionsInput } from './options.js';
import { probePlan, type ProbePlan } from './probe-plan.js';
import { Prober } from './probes.js';
import { QualityWatch } from './quality-watch.js';
import { ErrorPatterns } from './error-patterns.js';
import { orderByHealth } from './route-filter.js';
import { warmBackups } from './warm-backups.js';
import { SharedVerdicts } from './shared-health.js';

export const PLUGIN_NAME = '@switchyard/plugin-health';

const WARM_REACHABILITY = { intervalMs: 30_000, timeoutMs: 5_000 };

export const health = definePlugin<HealthOptions, HealthOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: healthOptionsSchema,
  apply(pipeline, options) {
    const plan = probePlan(pipeline, options);
    const shared = new SharedVerdicts(pipeline, options.sharedVerdictMs);
    const book = new HealthBook(pipeline, options, shared, plan.latencyTargetMs);
    shared.start();
    const quality = new QualityWatch(pipeline, (id) => plan.settings({ deploymentId: id }, 'quality'));
    const onQualityError = (error: unknown) => pipeline.events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'probe:quality', error });
    const prober = new Prober(pipeline, plan, (result) => {
      book.recordProbe(result);
      if (result.depth === 'quality') quality.track(result, onQualityError);
    });
    book.qualityOf = (id) => quality.verdict(id);

    const patterns = new ErrorPatterns(pipeline, options.patterns);
    book.patternsOf = (id) => patterns.active(id);

    // Synchronous taps: the work is in memory, so no promise per request.
    pipeline.hooks.recordAttempt.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (outcome) => {
      // The attempt's end as the core read it (one clock read for every tap); an outcome from elsewhere reads the clock.
      const at = outcome.endedAt ?? pipeline.clock.now();
      if (patterns.enabled) patterns.observe(outcome, at);
      const latencyMs = outcome.stream && outcome.ttftMs !== undefined ? outcome.ttftMs : outcome.latencyMs;
      const id = outcome.candidate.deploymentId;
      switch (outcome.outcome) {
        case 'success':
          return book.record(id, { kind: 'success', latencyMs }, at);
        case 'endpoint-failure':
          return book.record(id, { kind: 'failure', latencyMs }, at);
        case 'rate-limited':
          // Throttled, not down: a partial failure, and its (fast) latency says nothing.
          return book.record(id, { kind: 'failure', weight: options.rateLimitedWeight }, at);
        default:
          // Key, request and misconfiguration failures and cancellations say nothing about health.
          return undefined;
      }
    });

    pipeline.hooks.route.tap({ name: PLUGIN_NAME, stage: STAGE.FILTER }, (candidates, _classification, ctx) =>
      orderByHealth(candidates, book, pipeline.random, pipeline.clock.now(), options.unhealthy, ctx),
    );

    const monitor: HealthMonitor = {
      score: (id) => book.score(id),
      isHealthy: (id) => book.isHealthy(id),
      snapshot: () => book.snapshot(),
      runProbes: async (depths) => {
        const results = await prober.runAll(depths);
        await quality.settled();
        return results;
      },
      resetQualityBaseline: (deploymentId) => quality.resetBaseline(deploymentId),
      stop: () => prober.stop(),
    };
    registerHealth(pipeline, monitor);
    provideService(pipeline, SERVICE.health, { report: () => book.snapshot() });
    // Warming probes a backup's reachability whether or not it is probed on a schedule.
    const warmPlan: ProbePlan = { settings: (target, depth) => (depth === 'reachability' ? (plan.settings(target, depth) ?? WARM_REACHABILITY) : undefined) as never, latencyTargetMs: plan.latencyTargetMs };
    const warmProber = new Prober(pipeline, warmPlan, (result) => book.recordProbe(result));
    warmBackups(pipeline, options.warmBackups, (target) => {
      void warmProber.probeOnce(target, 'reachability').then((result) => result && book.recordProbe(result));
    });
    if (prober.configured.length > 0) {
      prober.start();
      pipeline.events.once('pipeline:close', () => prober.stop());
    }
  },
});
