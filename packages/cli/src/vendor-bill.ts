/**
 * A vendor's bill, read from what its console or API exports, as one charge per vendor and UTC
 * day in micro-dollars (`switchyard usage --reconcile`). Accepted:
 *
 * - OpenAI's Costs API answer (`GET /v1/organization/costs`: a `page` of daily `bucket`s whose
 *   `results[].amount` is `{ value, currency }`), or a JSON array of such pages;
 * - Anthropic's cost report (`GET /v1/organizations/cost_report`: `data[]` buckets with
 *   `starting_at` and `results[].amount`, a decimal string in cents);
 * - a table, CSV or a JSON array of objects, with a day column and a cost column (and
 *   optionally currency and vendor columns), recognised by their names: the generic format
 *   `date,vendor,cost_usd`, OpenAI's flattened cost export (`start_time…,amount_value,
 *   amount_currency`), and the usage / billing exports of the other consoles as far as their
 *   column names are known (`usage_date_utc`, `cost_usd`; DeepSeek's `日期`, `金额`, `币种`).
 *
 * Amounts in another currency than USD are converted with the rates given (`--fx CNY=0.14`:
 * USD per unit); a currency without a rate is an error naming it, never a silent 1:1.
 */
import { CLI_ERRORS } from './error-codes.js';
import { parse as parseCsv } from 'csv-parse/sync';
import { SwitchyardError } from '@switchyard/core';

export interface BillLine {
  vendor: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** In millionths of a USD, after conversion. */
  costMicros: number;
}

export type BillFormat = 'openai-costs' | 'anthropic-cost-report' | 'table';

export interface BillOptions {
  /** Where the text came from, for messages. */
  file: string;
  /** The vendor the bill is for (an endpoint name or provider id); overrides what the file says. */
  vendor?: string;
  /** The file's currency when it names none (default USD). */
  currency?: string;
  /** USD per unit of each other currency (`{ CNY: 0.14 }`). */
  fx?: Readonly<Record<string, number>>;
}

export interface VendorBill {
  format: BillFormat;
  lines: BillLine[];
}

const COLUMNS = {
  day: ['date', 'day', 'usage_date', 'usage_date_utc', 'start_time_iso', 'start_time', 'starting_at', 'bucket_start', 'billing_date', '日期', '时间', '账单日期', '消费日期'],
  cost: ['cost_usd', 'costusd', 'cost', 'amount_value', 'amount_usd', 'amount', 'total_cost', 'cost (usd)', 'total', '金额', '消费金额', '费用', '总金额', '扣费金额'],
  currency: ['currency', 'amount_currency', 'cost_currency', '货币', '币种'],
  vendor: ['vendor', 'provider', 'endpoint'],
} as const;

type Row = Record<string, unknown>;

export function parseVendorBill(text: string, options: BillOptions): VendorBill {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      throw billError(options, `is not valid JSON (${(error as Error).message})`);
    }
    return fromJson(json, options);
  }
  let rows: Row[];
  try {
    rows = parseCsv(trimmed, { columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, trim: true, relax_column_count: true }) as Row[];
  } catch (error) {
    throw billError(options, `is not a CSV table (${(error as Error).message})`);
  }
  return { format: 'table', lines: fromRows(rows, options, (i) => `line ${i + 2}`) };
}

function fromJson(json: unknown, options: BillOptions): VendorBill {
  const pages = Array.isArray(json) && json.every(isOpenAIPage) && json.length > 0 ? json : isOpenAIPage(json) ? [json] : undefined;
  if (pages) {
    const lines: BillLine[] = [];
    for (const page of pages) {
      for (const [b, bucket] of asArray(page.data).entries()) {
        const day = dayOf(bucket.start_time, options, `data[${b}].start_time`);
        for (const [r, result] of asArray(bucket.results ?? bucket.result).entries()) {
          const amount = (result as Row).amount as { value?: unknown; currency?: unknown } | undefined;
          if (!amount) continue;
          lines.push(line(options.vendor ?? 'openai', day, amount.value, amount.currency, options, `data[${b}].results[${r}].amount`));
        }
      }
    }
    return { format: 'openai-costs', lines };
  }
  if (isAnthropicReport(json)) {
    const lines: BillLine[] = [];
    for (const [b, bucket] of asArray((json as Row).data).entries()) {
      const day = dayOf(bucket.starting_at, options, `data[${b}].starting_at`);
      for (const [r, result] of asArray(bucket.results).entries()) {
        // "Cost amount in lowest currency units (e.g. cents) as a decimal string."
        const cents = amountOf(result.amount, options, `data[${b}].results[${r}].amount`);
        lines.push(line(options.vendor ?? 'anthropic', day, cents.value / 100, result.currency ?? cents.currency, options, `data[${b}].results[${r}].amount`));
      }
    }
    return { format: 'anthropic-cost-report', lines };
  }
  const rows = Array.isArray(json) ? json : asArray((json as Row)?.lines ?? (json as Row)?.data);
  if (rows.length === 0 || !rows.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r))) {
    throw billError(options, 'is JSON but neither an OpenAI costs page, an Anthropic cost report nor an array of { date, vendor, cost_usd } objects');
  }
  const lower = rows.map((r) => Object.fromEntries(Object.entries(r as Row).map(([k, v]) => [k.trim().toLowerCase(), v])));
  return { format: 'table', lines: fromRows(lower, options, (i) => `[${i}]`) };
}

function fromRows(rows: Row[], options: BillOptions, where: (index: number) => string): BillLine[] {
  if (rows.length === 0) throw billError(options, 'has no rows');
  const names = Object.keys(rows[0]);
  const pick = (candidates: readonly string[]) => candidates.find((c) => names.includes(c));
  const dayColumn = pick(COLUMNS.day);
  const costColumn = pick(COLUMNS.cost);
  if (!dayColumn || !costColumn) {
    throw billError(options, `has no ${dayColumn ? 'cost' : 'day'} column (columns: ${names.join(', ')}; expected one of ${(dayColumn ? COLUMNS.cost : COLUMNS.day).join(', ')})`);
  }
  const currencyColumn = pick(COLUMNS.currency);
  const vendorColumn = pick(COLUMNS.vendor);
  // OpenAI's flattened Costs export names its columns after the API's fields.
  const impliedVendor = names.includes('amount_value') && names.includes('amount_currency') ? 'openai' : undefined;
  return rows.map((row, i) => {
    const at = where(i);
    const vendor = options.vendor || (vendorColumn ? String(row[vendorColumn] ?? '').trim() : '') || impliedVendor;
    if (!vendor) throw billError(options, `${at}: names no vendor (add a vendor column, or pass --vendor with the endpoint or provider the bill is for)`);
    return line(vendor, dayOf(row[dayColumn], options, `${at} ${dayColumn}`), row[costColumn], currencyColumn ? row[currencyColumn] : undefined, options, `${at} ${costColumn}`);
  });
}

function line(vendor: string, day: string, rawAmount: unknown, rawCurrency: unknown, options: BillOptions, at: string): BillLine {
  const amount = amountOf(rawAmount, options, at);
  const currency = (typeof rawCurrency === 'string' && rawCurrency.trim() ? rawCurrency.trim() : (amount.currency ?? options.currency ?? 'USD')).toUpperCase();
  let usd = amount.value;
  if (currency !== 'USD') {
    const rate = options.fx?.[currency];
    if (rate === undefined) throw billError(options, `${at}: the amount is in ${currency}; pass --fx ${currency}=<USD per ${currency}> to convert it`);
    usd *= rate;
  }
  return { vendor: vendor.toLowerCase(), day, costMicros: Math.round(usd * 1_000_000) };
}

const SYMBOLS: Record<string, string> = { $: 'USD', '¥': 'CNY', '￥': 'CNY', '€': 'EUR', '£': 'GBP' };

function amountOf(raw: unknown, options: BillOptions, at: string): { value: number; currency?: string } {
  if (typeof raw === 'number' && Number.isFinite(raw)) return { value: raw };
  if (typeof raw === 'string') {
    const text = raw.trim();
    const symbol = [...text].find((c) => SYMBOLS[c]);
    const value = Number(text.replace(/[$¥￥€£,\s]|USD|CNY|RMB/gi, ''));
    if (text !== '' && Number.isFinite(value)) return { value, currency: symbol ? SYMBOLS[symbol] : /CNY|RMB/i.test(text) ? 'CNY' : undefined };
  }
  throw billError(options, `${at}: expected an amount, got ${JSON.stringify(raw)}`);
}

function dayOf(raw: unknown, options: BillOptions, at: string): string {
  let t = Number.NaN;
  if (typeof raw === 'number' || (typeof raw === 'string' && /^\d{9,13}$/.test(raw.trim()))) {
    const n = Number(raw);
    t = n < 1e11 ? n * 1000 : n; // Unix seconds (the Costs API) or milliseconds
  } else if (typeof raw === 'string') {
    const text = raw.trim().replace(/^(\d{4})[/.](\d{1,2})[/.](\d{1,2})/, (_m, y, m, d) => `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`);
    t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : /^\d{4}-\d{2}-\d{2} \d/.test(text) ? `${text.replace(' ', 'T')}Z` : text);
  }
  if (!Number.isFinite(t)) throw billError(options, `${at}: expected a day (YYYY-MM-DD, an ISO time or Unix seconds), got ${JSON.stringify(raw)}`);
  return new Date(t).toISOString().slice(0, 10);
}

function isOpenAIPage(value: unknown): value is { data: unknown } {
  return typeof value === 'object' && value !== null && (value as Row).object === 'page' && Array.isArray((value as Row).data);
}

function isAnthropicReport(value: unknown): boolean {
  const data = (value as Row | null)?.data;
  return Array.isArray(data) && data.length > 0 && data.every((b) => typeof b === 'object' && b !== null && 'starting_at' in b && Array.isArray((b as Row).results));
}

function asArray(value: unknown): Row[] {
  return Array.isArray(value) ? (value as Row[]) : [];
}

function billError(options: BillOptions, problem: string): SwitchyardError {
  return new SwitchyardError('config', `vendor bill ${options.file} ${problem}`, { code: CLI_ERRORS.SWITCHYARD_ERR_VENDOR_BILL, path: options.file });
}
