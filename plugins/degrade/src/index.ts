// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { QueueReplay, SloChange } from '@switchyard/contracts';
export { degrade } from './degrade-plugin.js';
export { degrade as default } from './degrade-plugin.js';
export { readQueue, replayQueue, type QueuedRequest, type ReplayOptions, type ReplayResult, type ReplaySummary } from './queue.js';
export { levelName, PLUGIN_NAME } from './levels.js';
export { degradeOptionsSchema, levelSchema, sloSchema, type DegradeOptions, type DegradeOptionsInput, type Level, type SloOptions } from './options.js';
export { CuratedAnswers, loadCuratedAnswers, normalizeQuestion, type MatchMode } from './curated-answers.js';
