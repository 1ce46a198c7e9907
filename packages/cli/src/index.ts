// The events it observes are declared by their owners in @switchyard/contracts.
import '@switchyard/contracts';
export { main, mainHelp, COMMANDS } from './main.js';
export { startServer, type RunningServer, type ServeOptions } from './running-server.js';
export { readConfig, buildPipeline, type LoadedSetup } from './load-config.js';
export { probeEndpoint, listedModels, modelsSummary, type ProbeResult } from './probe-endpoints.js';
export { runDemoCommand, type DemoModule, type DemoLoader } from './demo-command.js';
export { cliImporter } from './importer.js';
export { formatError } from './format-error.js';
export { createServeLogger, resolveLogLevel, prettyLine, LOG_LEVELS, type LogLevel, type ServeLogger, type ServeLoggerOptions } from './serve-logger.js';
export { limitHeapGrowth, SERVE_HEAP_GROWING_PERCENT } from './serve-memory.js';
export { EXIT, processIO, type CliIO, type Output } from './io.js';
export type { Command } from './command.js';
