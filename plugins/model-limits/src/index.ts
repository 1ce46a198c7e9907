export { modelLimits, modelLimits as default, PLUGIN_NAME } from './plugin.js';
export { modelLimitsOptionsSchema, type ModelLimitsOptions, type ModelLimitsOptionsInput } from './options.js';
export { PROVIDER_PRESETS } from './presets.js';
export { limitsOf, violation, type Violation } from './parameter-check.js';
export { estimateTokens, truncateToBudget, type Truncation } from './truncate.js';
