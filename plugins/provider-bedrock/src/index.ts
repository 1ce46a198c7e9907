/**
 * @switchyard/provider-bedrock: Amazon Bedrock as a Switchyard provider (id `bedrock`).
 * Claude passes through InvokeModel with the Messages body; requests are signed with SigV4 from
 * the AWS credential chain (or carry a Bedrock API key); streams are AWS event-stream frames.
 */
import { bedrockProvider } from './provider.js';

export { bedrockProvider, createBedrockProvider, type BedrockProviderOptions } from './provider.js';
export { BEDROCK_ANTHROPIC_BETAS } from './betas.js';
export { BEDROCK_ANTHROPIC_VERSION } from './invoke.js';
export { classifyBedrockError } from './classify-error.js';
export { describeCredentialSource, RefreshingCredentials, REFRESH_BEFORE_MS } from './credentials.js';
export { bedrockBaseUrl, bedrockRegion } from './endpoint-url.js';
export { EventStreamFrames } from './event-stream.js';

export const providers = [bedrockProvider];
export default providers;
