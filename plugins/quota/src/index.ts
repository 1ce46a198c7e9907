export { quota, getUsage } from './quota-plugin.js';
export { quota as default } from './quota-plugin.js';
export { formatUsageReport } from './report-format.js';
export { DEFAULT_PRICES, defaultPrice, priceFor, costOf, tokensOf, type PriceTable, type TokenCounts } from './prices.js';
export { pacingPauseMs } from './pacing.js';
export { quotaOptionsSchema, budgetSchema, type QuotaOptions, type QuotaOptionsInput, type Budget, type PacingOptions, type LimitName, type ScopeName } from './options.js';
export type { UsageReport, UsageTotals } from './ledger.js';
export { PLUGIN_NAME } from './name.js';
