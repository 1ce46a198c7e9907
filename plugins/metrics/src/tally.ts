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
