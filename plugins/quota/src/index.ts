// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { BudgetForecast, KeyStateChange, PricingService, QuotaThreshold, SpendForecast, UsageBilled, UsageQueryService } from '@switchyard/contracts';
export { quota, getUsage, USAGE_SERVICE, type UsageService } from './quota-plugin.js';
export { billAttempt, type AttemptBill, type BillContext, type EstimateBasis } from './attempt-bill.js';
export { readUsageLog, logFileFor } from './usage-log.js';
export { addRecord, answerFrom, emptyDay, dayOf, parseUsageQuery, UsageQueryError, GROUP_BY, type UsageRecord, type UsageAnswer, type UsageLine, type UsageQuery, type GroupBy, type DayDoc } from './usage-record.js';
export { quota as default } from './quota-plugin.js';
export { formatUsageReport } from './report-format.js';
export { DEFAULT_PRICES, DEFAULT_TOOL_FEES, OPENAI_REASONING_TOOL_FEES, toolFeesFor, defaultPrice, priceFor, outputSpeedFor, costOf, tokensOf, type PriceTable, type TokenCounts } from './prices.js';
export { pacingPauseMs } from './pacing.js';
export { projectSpend, forecastSpend, type Projection, type ForecastPeriod } from './forecast.js';
export { quotaOptionsSchema, budgetSchema, DEFAULT_OUTPUT_TOKENS_PER_SECOND, type QuotaOptions, type QuotaOptionsInput, type Budget, type PacingOptions, type LimitName, type ScopeName } from './options.js';
export type { UsageReport, UsageTotals } from './ledger.js';
export { PLUGIN_NAME } from './name.js';
