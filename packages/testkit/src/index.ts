export { CONFORMANCE_REQUEST, runProviderConformance, valueAt, type ConformanceOptions } from './conformance.js';
export { startSampleServer, type SampleServer, type Behaviour, type SeenRequest } from './sample-server.js';
export { defaultCutStream, sseEvents, type ConformanceSamples, type ErrorSample, type ErrorSampleKind, type ExpectedToolCall, type FinishReasonSamples, type RequestMapping, type HttpSample, type StreamSample } from './samples.js';
