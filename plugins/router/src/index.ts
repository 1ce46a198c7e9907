// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export { ROUTING_ERRORS, type TrafficDrift } from '@switchyard/contracts';
import { router } from './router.js';

export { router, PLUGIN_NAME, type RouterRequestState } from './router.js';
export { routerOptionsSchema, STRATEGIES, type RouterOptions, type RouterOptionsInput, type Strategy } from './options.js';
export { weightedPick, weightedOrder } from './weighted-pick.js';
export { PeakEwma, type PeakEwmaOptions } from './peak-ewma.js';
export { p2c } from './p2c.js';
export { requiredCapabilities, requiredContextTokens, hasCapabilities, fitsContext } from './capabilities.js';
export { priorityWeighted, leastLatency, costAware, requestCost, tiersOf } from './strategies.js';
export default router;
