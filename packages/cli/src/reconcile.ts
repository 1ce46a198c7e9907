/**
 * The ledger against a vendor's bill, per vendor and UTC day: what the usage log says we spent
 * there (billed from the vendor's usage, and our estimates apart) next to what the vendor
 * charged, and the difference (vendor − ledger). Sums are integer micro-dollars.
 *
 * A bill's vendor is matched to log records by endpoint name first (a bill for one account),
 * else by provider id (`openai`, `anthropic`, `deepseek`: every endpoint of that provider).
 * Days run from the bill's first to its last day; a day one side has and the other lacks counts
 * as 0 there.
 */
import type { UsageRecord } from '@switchyard/plugin-quota';
import type { BillLine } from './vendor-bill.js';

export interface ReconcileLine {
  vendor: string;
  day: string;
  ledger: { billedUsd: number; estimatedUsd: number; totalUsd: number };
  vendorUsd: number;
  /** vendor − ledger total: positive when the vendor charged more than we counted. */
  differenceUsd: number;
  /** The difference as a share of the vendor's charge, in percent (null when it charged 0). */
  differencePercent: number | null;
}

export interface Reconciliation {
  lines: ReconcileLine[];
  /** Per vendor, over every day of the bill. */
  totals: ReconcileLine[];
}

interface Sums {
  billed: number;
  estimated: number;
  vendor: number;
}

const micros = (usd: number) => Math.round(usd * 1_000_000);

export function reconcile(records: readonly UsageRecord[], bill: readonly BillLine[]): Reconciliation {
  const vendors = [...new Set(bill.map((l) => l.vendor))].sort();
  const days = bill.map((l) => l.day).sort();
  const [first, last] = [days[0], days[days.length - 1]];
  const endpoints = new Set(records.map((r) => r.endpoint.toLowerCase()));
  const sums = new Map<string, Map<string, Sums>>(vendors.map((v) => [v, new Map()]));
  const slot = (vendor: string, day: string) => {
    const byDay = sums.get(vendor)!;
    let s = byDay.get(day);
    if (!s) byDay.set(day, (s = { billed: 0, estimated: 0, vendor: 0 }));
    return s;
  };
  for (const l of bill) slot(l.vendor, l.day).vendor += l.costMicros;
  for (const r of records) {
    const day = r.at.slice(0, 10);
    if (day < first || day > last) continue;
    const vendor = vendorOf(r, vendors, endpoints);
    if (!vendor) continue;
    const s = slot(vendor, day);
    if (r.estimated) s.estimated += micros(r.costUsd);
    else s.billed += micros(r.costUsd);
  }
  const lines: ReconcileLine[] = [];
  const totals: ReconcileLine[] = [];
  for (const vendor of vendors) {
    const total: Sums = { billed: 0, estimated: 0, vendor: 0 };
    for (const [day, s] of [...sums.get(vendor)!].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(lineOf(vendor, day, s));
      total.billed += s.billed;
      total.estimated += s.estimated;
      total.vendor += s.vendor;
    }
    totals.push(lineOf(vendor, `${first}..${last}`, total));
  }
  return { lines, totals };
}

/** A bill named after an endpoint covers that endpoint; else it covers every endpoint of that provider. */
function vendorOf(r: UsageRecord, vendors: readonly string[], endpoints: ReadonlySet<string>): string | undefined {
  const endpoint = r.endpoint.toLowerCase();
  if (vendors.includes(endpoint)) return endpoint;
  const provider = r.provider?.toLowerCase();
  return provider && vendors.includes(provider) && !endpoints.has(provider) ? provider : undefined;
}

function lineOf(vendor: string, day: string, s: Sums): ReconcileLine {
  const ledger = s.billed + s.estimated;
  const difference = s.vendor - ledger;
  return {
    vendor,
    day,
    ledger: { billedUsd: s.billed / 1e6, estimatedUsd: s.estimated / 1e6, totalUsd: ledger / 1e6 },
    vendorUsd: s.vendor / 1e6,
    differenceUsd: difference / 1e6,
    differencePercent: s.vendor === 0 ? null : Math.round((difference / s.vendor) * 10_000) / 100,
  };
}
