export { geminiProvider, GEMINI_DEFAULT_BASE_URL } from './provider.js';
export { toGeminiSchema, toGeminiParameters } from './schema.js';
export type { GeminiEndpointOptions } from './request.js';
export type { GeminiMessageMetadata } from './thought-signatures.js';
import { geminiProvider } from './provider.js';

export const providers = [geminiProvider];
export default providers;
