export { degrade } from './degrade-plugin.js';
export { degrade as default } from './degrade-plugin.js';
export { readQueue, replayQueue, type QueuedRequest, type ReplayOptions, type ReplayResult, type ReplaySummary } from './queue.js';
export { levelName, PLUGIN_NAME } from './levels.js';
export { degradeOptionsSchema, levelSchema, type DegradeOptions, type DegradeOptionsInput, type Level } from './options.js';
