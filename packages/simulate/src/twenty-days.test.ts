/**
 * The acceptance run (issue 7): 20 simulated days, one request every 30 s, the realistic fault
 * schedule of scenarios/twenty-days.yaml, through the real pipeline with the retry, breaker,
 * health and router plugins and the real vendor codecs. It keeps ≥ 99.9 % success whenever at
 * least one endpoint was up. Its wall time (about 50 s on a quiet 2-core machine) is printed in the
 * report, not asserted: a timed assertion fails on a busy machine without telling anything about
 * the code (bench/ measures speed).
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { health } from '@switchyard/plugin-health';
import { retry } from '@switchyard/plugin-retry';
import { router } from '@switchyard/plugin-router';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { providers as gemini } from '@switchyard/provider-gemini';
import { providers as openai } from '@switchyard/provider-openai';
import { formatReport } from './format-report.js';
import { runSimulation } from './run-simulation.js';
import { loadScenarioFile } from './scenario-file.js';

it('20 days at one request every 30 s: ≥ 99.9 % success while any endpoint was up', async () => {
  const scenario = await loadScenarioFile(fileURLToPath(new URL('./scenarios/twenty-days.yaml', import.meta.url)));
  const report = await runSimulation(scenario, {
    providers: [...openai, ...anthropic, ...gemini],
    plugins: [retry(), circuitBreaker(), health(), router()],
  });
  console.log(formatReport(report));

  expect(report.requests).toBeGreaterThan(57_000);
  expect(report.requests).toBeLessThan(58_200);
  expect(report.unfinished).toBe(0);
  expect(report.incompleteAnswers).toBe(0);
  expect(report.whileAnyUp.successRate).toBeGreaterThanOrEqual(0.999);
  // The schedule really bit: the outage moved traffic, breakers tripped, the dead key was seen,
  // and the 20 minutes with every vendor down failed cleanly rather than being skipped.
  expect(report.answeredBy.backup).toBeGreaterThan(300);
  expect(report.breakerTrips.byDeployment['primary/gpt-4o-mini#0']).toBeGreaterThan(0);
  expect(report.upstream.byFault['out-of-credit']).toBeGreaterThan(0);
  expect(report.upstream.byFault['rate-limited']).toBeGreaterThan(0);
  expect(report.whileAllDown.requests).toBeGreaterThanOrEqual(30);
  // Retries never storm: fewer than 1.5 upstream calls per request over the whole run.
  expect(report.upstream.amplification).toBeLessThan(1.5);
}, 600_000);
