/**
 * A small Prometheus text exposition kept from gateway counters and pipeline events. The
 * metrics plugin will replace it with histograms; labels never carry keys (only endpoint names).
 */
import type { Pipeline } from '@switchyard/core';

type Labels = Record<string, string | number>;

const HELP: Record<string, [type: 'counter' | 'gauge', help: string]> = {
  switchyard_gateway_requests_total: ['counter', 'HTTP requests answered, by route and status.'],
  switchyard_gateway_shed_total: ['counter', 'Requests refused because maxInFlight was reached.'],
  switchyard_gateway_in_flight: ['gauge', 'Requests being served now.'],
  switchyard_gateway_reloads_total: ['counter', 'Pipeline reloads, by result.'],
  switchyard_upstream_attempts_total: ['counter', 'Upstream attempts, by endpoint and outcome class.'],
  switchyard_failovers_total: ['counter', 'Moves from one candidate to the next.'],
  switchyard_retries_total: ['counter', 'Retries of the same or another candidate after a delay.'],
  switchyard_degraded_total: ['counter', 'Answers from the degrade stage, by level.'],
};

function escapeLabel(value: string | number): string {
  return String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function seriesKey(name: string, labels?: Labels): string {
  if (!labels) return name;
  const inner = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
  return `${name}{${inner}}`;
}

export class GatewayMetrics {
  private readonly values = new Map<string, { name: string; value: number }>();
  private readonly gauges = new Map<string, () => number>();

  inc(name: string, labels?: Labels, by = 1): void {
    const key = seriesKey(name, labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { name, value: by });
  }

  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
  }

  /** Counts the pipeline's events until the returned function is called. */
  observe(pipeline: Pipeline): () => void {
    const { events } = pipeline;
    const onAttempt = (o: { candidate: { endpoint: { name: string } }; outcome: string }) => this.inc('switchyard_upstream_attempts_total', { endpoint: o.candidate.endpoint.name, outcome: o.outcome });
    const onFailover = () => this.inc('switchyard_failovers_total');
    const onRetry = () => this.inc('switchyard_retries_total');
    const onDegraded = (e: { level: string }) => this.inc('switchyard_degraded_total', { level: e.level });
    events.on('attempt:end', onAttempt);
    events.on('failover', onFailover);
    events.on('retry', onRetry);
    events.on('degraded', onDegraded);
    return () => {
      events.off('attempt:end', onAttempt);
      events.off('failover', onFailover);
      events.off('retry', onRetry);
      events.off('degraded', onDegraded);
    };
  }

  render(): string {
    const byName = new Map<string, string[]>();
    for (const [key, { name, value }] of this.values) {
      const lines = byName.get(name) ?? [];
      lines.push(`${key} ${value}`);
      byName.set(name, lines);
    }
    for (const [name, read] of this.gauges) byName.set(name, [`${name} ${read()}`]);
    let out = '';
    for (const [name, lines] of byName) {
      const [type, help] = HELP[name] ?? ['counter', name];
      out += `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${lines.join('\n')}\n`;
    }
    return out;
  }
}
