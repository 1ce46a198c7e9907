/**
 * The pipeline a config describes. Core builds it and the upstream transport the config asks
 * for (custom CA, HTTPS_PROXY / NO_PROXY) in one place, and the pipeline owns that transport:
 * closing it (a reload, `validate`, `check`) closes the upstream sockets.
 */
export { createPipelineFromConfig as pipelineFromConfig, resolveCa } from '@switchyard/core/config';
