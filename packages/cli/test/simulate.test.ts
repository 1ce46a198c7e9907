import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { capture, configFile, removeTempDirs } from './support.js';

afterEach(removeTempDirs);

const scenario = `
name: two-days
seed: 7
duration: 2d
report: { bucket: 2h }
traffic: { every: 2m, streamShare: 0.3, model: chat }
endpoints:
  - name: primary
    provider: openai
    models: [gpt-4o-mini]
    faults:
      - { fault: unavailable, when: { between: [1d, 1d3h] } }
  - name: backup
    provider: anthropic
    models: [claude-sonnet-4-5]
models:
  chat:
    - { endpoint: primary, model: gpt-4o-mini, priority: 0 }
    - { endpoint: backup, model: claude-sonnet-4-5, priority: 1 }
plugins:
  - "@switchyard/plugin-retry"
  - "@switchyard/plugin-circuit-breaker"
`;

describe('simulate', () => {
  it('runs a scenario file with its plugins and writes the report and chart', async () => {
    const file = await configFile(scenario, 'scenario.yaml');
    const dir = path.dirname(file);
    const c = capture({}, dir);
    const code = await main(['simulate', '--scenario', 'scenario.yaml', '--html', 'chart.html', '--json', 'report.json', '--min-success', '99.9'], c.io);
    expect(c.err).not.toContain('error');
    expect(code).toBe(0);
    expect(c.out).toContain('two-days');
    const report = JSON.parse(await readFile(path.join(dir, 'report.json'), 'utf8'));
    expect(report.requests).toBeGreaterThan(1400);
    expect(report.whileAnyUp.successRate).toBeGreaterThanOrEqual(0.999);
    expect(report.answeredBy.backup).toBeGreaterThan(50);
    expect(report.breakerTrips.total).toBeGreaterThan(0);
    expect(await readFile(path.join(dir, 'chart.html'), 'utf8')).toContain('<svg');
  });

  it('names a bad scenario field and exits 1', async () => {
    const file = await configFile(scenario.replace('every: 2m', 'every: soon'), 'scenario.yaml');
    const c = capture({}, path.dirname(file));
    expect(await main(['simulate', '--scenario', file, '--no-progress'], c.io)).toBe(1);
    expect(c.err).toMatch(/traffic\.every/);
  });

  // Without --scenario it runs the bundled scenario (package-files.test.ts checks it ships and
  // loads); option errors are still caught before anything runs.
  it('rejects a --min-success that is not a percentage before running', async () => {
    const c = capture();
    expect(await main(['simulate', '--min-success', '101'], c.io)).toBe(2);
    expect(c.err).toContain('--min-success must be a percentage');
  });
});
