// Its events and codes are declared in the shared contracts: importing this package types them.
import '@switchyard/contracts';
export { balance, balance as default, getBalances, PLUGIN_NAME, type BalanceHandle } from './plugin.js';
export { balanceOptionsSchema, endpointBalanceSchema, type BalanceOptions, type BalanceOptionsInput } from './options.js';
export { balanceTargets, type BalanceReading } from './poller.js';
