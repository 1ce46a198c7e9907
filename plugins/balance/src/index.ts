// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { BalanceUpdate } from '@switchyard/contracts';
export { balance, balance as default, getBalances, PLUGIN_NAME, type BalanceHandle } from './plugin.js';
export { balanceOptionsSchema, endpointBalanceSchema, type BalanceOptions, type BalanceOptionsInput } from './options.js';
export { balanceTargets, type BalanceReading } from './poller.js';
