/**
 * The dashboard and the alert rules name only metrics that Switchyard exports, and every
 * metric the metrics plugin exports has a panel. (promtool checks the rules in .ci/run.)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { GatewayMetrics } from '@switchyard/gateway';
import { DEFAULT_BACKOFF_BUCKETS, DEFAULT_DURATION_BUCKETS, DEFAULT_TTFT_BUCKETS, metricSet } from '@switchyard/plugin-metrics';

const here = path.dirname(fileURLToPath(import.meta.url));
const read = (file: string) => readFile(path.join(here, '..', file), 'utf8');

async function exported(): Promise<{ plugin: Set<string>; all: Set<string> }> {
  const plugin = new Registry();
  metricSet(plugin, { request: DEFAULT_DURATION_BUCKETS, attempt: DEFAULT_DURATION_BUCKETS, ttft: DEFAULT_TTFT_BUCKETS, backoff: DEFAULT_BACKOFF_BUCKETS });
  const gateway = new GatewayMetrics(() => 0, new Registry());
  const names = (r: Registry) => r.getMetricsAsArray().map((m) => m.name);
  return { plugin: new Set(names(plugin)), all: new Set([...names(plugin), ...names(gateway.registry)]) };
}

/** Metric names in PromQL, with histogram suffixes folded onto their family. */
function metricNames(promql: string): string[] {
  return [...promql.matchAll(/\b(switchyard_[a-z_]+)\b/g)].map((m) => m[1].replace(/_(bucket|sum|count)$/, ''));
}

describe('examples/observability', () => {
  it('the Grafana dashboard uses the exported metrics, and every plugin metric has a panel', async () => {
    const { plugin, all } = await exported();
    const dashboard = JSON.parse(await read('grafana-dashboard.json')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const used = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) for (const name of metricNames(target.expr)) used.add(name);
    }
    for (const name of used) expect(all, `dashboard names ${name}`).toContain(name);
    for (const name of plugin) expect(used, `no panel shows ${name}`).toContain(name);
  });

  it('the alert rules name exported metrics only and cover the six conditions', async () => {
    const { all } = await exported();
    const rules = await read('alerts.yml');
    for (const name of metricNames(rules)) expect(all).toContain(name);
    const alerts = ['SwitchyardSuccessRateLow', 'SwitchyardBreakerOpenLong', 'SwitchyardLatencyP95High', 'SwitchyardBudgetHigh', 'SwitchyardRateLimitedSustained', 'SwitchyardRequestsUnanswered'];
    expect([...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1])).toEqual(alerts);
    const tests = await read('alerts.test.yml');
    for (const alert of alerts) expect(tests).toContain(`alertname: ${alert}`);
  });
});
