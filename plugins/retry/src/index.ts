// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { DeploymentMisconfigured, RetryBudgetService } from '@switchyard/contracts';
export { retry, retry as default, getRetryControl, PLUGIN_NAME, type RetryControl } from './plugin.js';
export { computeBackoff, DEFAULT_BACKOFF, type BackoffOptions, type JitterMode } from './backoff.js';
export { retryDelayFromError } from './retry-after.js';
export { RetryBudget, DEFAULT_RETRY_BUDGET, type RetryBudgetOptions, type RetryBudgetSnapshot } from './retry-budget.js';
export { Cooldowns, keyScope, scopesOf, type Cooldown } from './cooldowns.js';
export { RetryPolicy, retryClass, retryState, type RetryRequestState } from './retry-policy.js';
export { retryOptionsSchema, type RetryOptions, type RetryOptionsInput } from './options.js';
