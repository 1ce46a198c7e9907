/**
 * A prom-client Counter whose values are added up in a plain Map on the request path and
 * handed to prom-client when the registry is scraped: a per-request increment is one Map
 * lookup instead of prom-client's label validation and hashing.
 */
import { Counter, type Registry } from 'prom-client';

interface Series {
  labels: Record<string, string>;
  value: number;
}

export class Tally {
  private readonly series = new Map<string, Series>();
  readonly counter: Counter;

  constructor(config: { name: string; help: string; labelNames?: readonly string[]; registers: Registry[] }) {
    const series = this.series;
    const labelNames = config.labelNames ?? [];
    this.labelNames = labelNames;
    this.counter = new Counter({
      name: config.name,
      help: config.help,
      labelNames,
      registers: config.registers,
      collect() {
        this.reset();
        for (const s of series.values()) this.inc(s.labels, s.value);
      },
    });
  }

  private readonly labelNames: readonly string[];

  /** Adds `by` to the series with these label values, in `labelNames` order. */
  add(by: number, ...values: string[]): void {
    const key = values.length === 1 ? values[0] : values.join('\u0001');
    const found = this.series.get(key);
    if (found) {
      found.value += by;
      return;
    }
    const labels: Record<string, string> = {};
    for (let i = 0; i < this.labelNames.length; i++) labels[this.labelNames[i]] = values[i];
    this.series.set(key, { labels, value: by });
  }
}

interface HistogramSeries {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram registered with prom-client as a custom metric (`get()` in
 * prom-client's shape): an observation is a Map lookup and a short bucket scan.
 */
export class TallyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly string[];
  private readonly buckets: readonly number[];
  private readonly series = new Map<string, HistogramSeries>();

  constructor(config: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: Registry[] }) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.buckets = config.buckets;
    for (const registry of config.registers) registry.registerMetric(this as never);
  }

  /** Observes `value` for the series with these label values, in `labelNames` order. */
  observe(value: number, ...values: string[]): void {
    if (!Number.isFinite(value)) return;
    const key = values.length === 1 ? values[0] : values.join('\u0001');
    let s = this.series.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      for (let i = 0; i < this.labelNames.length; i++) labels[this.labelNames[i]] = values[i];
      s = { labels, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]) i++;
    s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  reset(): void {
    this.series.clear();
  }

  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += s.counts[i];
        values.push({ labels: { ...s.labels, le: this.buckets[i] }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
