/**
 * @switchyard/provider-openai: the OpenAI Chat Completions codec family for Switchyard.
 * Provider ids `openai`, `azure`, `azure-foundry` (Azure AI Foundry's model inference endpoint), `openai-compatible` and the presets `dashscope`, `zhipu`,
 * `moonshot`, `qianfan`, `deepseek`.
 */
import { azureProvider } from './azure.js';
import { azureFoundryProvider } from './azure-foundry.js';
import { openaiProvider } from './openai.js';
import { openaiCompatibleProvider } from './openai-compatible.js';
import { vendorPresetProviders } from './vendor-presets.js';

export { openaiProvider } from './openai.js';
export { azureProvider, azurePath, AZURE_DEFAULT_API_VERSION } from './azure.js';
export { azureFoundryProvider, azureFoundryPath, AZURE_FOUNDRY_DEFAULT_API_VERSION, checkAzureFoundryEndpoint } from './azure-foundry.js';
export { openaiCompatibleProvider } from './openai-compatible.js';
export { vendorPresetProviders, VENDOR_PRESETS } from './vendor-presets.js';
export { deepseekBalance, moonshotBalance, type BalanceRoute } from './balance.js';
export { defineOpenAIFamilyProvider, bearerAuth, type OpenAIFamilyOptions, type OpenAIOperation } from './provider.js';
export { classifyHttpError, classifyStreamError, readErrorBody } from './classify-error.js';
export { ChatStreamDecoder } from './stream-decoder.js';
export { ResponsesStreamDecoder } from './responses-stream-decoder.js';
export { parseResponsesResponse } from './responses-response.js';
export { classifyResponseFailure } from './responses-errors.js';
export { buildResponsesBody, responsesApiEnabled } from './responses-request.js';

export const providers = [openaiProvider, azureProvider, azureFoundryProvider, openaiCompatibleProvider, ...vendorPresetProviders];
export default providers;
