export { geminiProvider, GEMINI_DEFAULT_BASE_URL } from './provider.js';
export { GEMINI_GENERATE_CONTENT } from './wire-format.js';
export { geminiDialect, isGeminiCaller } from './dialect/index.js';
export { toGeminiSchema, toGeminiParameters, fromGeminiSchema } from './schema.js';
export type { GeminiEndpointOptions } from './request.js';
export type { GeminiMessageMetadata } from './thought-signatures.js';
import { geminiProvider } from './provider.js';

export const providers = [geminiProvider];
export default providers;
