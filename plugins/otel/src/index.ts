// The events it observes are declared by their owners in @switchyard/contracts.
import '@switchyard/contracts';
export { otel, otel as default, traceRequests, otelOptionsSchema, PLUGIN_NAME, type OtelOptions, type OtelOptionsInput } from './plugin.js';
export { ATTR, providerName, operationName } from './genai.js';
export { toTraceparent, withRemoteParent } from './trace-context.js';
