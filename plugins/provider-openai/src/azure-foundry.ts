/**
 * Azure AI Foundry's model inference endpoint (provider id `azure-foundry`): the models of the
 * Foundry catalogue (Llama, Mistral, DeepSeek, Phi, Cohere, Grok…) behind one OpenAI-shaped
 * Chat Completions surface. The endpoint's baseUrl is the resource's `/models` root
 * (`https://NAME.services.ai.azure.com/models`, or a serverless deployment's
 * `https://HOST.REGION.models.ai.azure.com`); requests go to `{baseUrl}/chat/completions` and
 * `{baseUrl}/embeddings` with `?api-version=` (the endpoint's `apiVersion`, default below), the
 * deployment name in the body's `model`, and the key in the `api-key` header.
 */
import { parseBaseUrl } from '@switchyard/core/wire';
import type { Candidate, EndpointConfig } from '@switchyard/core';
import { defineOpenAIFamilyProvider, type OpenAIOperation } from './provider.js';

/** The model inference API's generally documented version at the time of writing. */
export const AZURE_FOUNDRY_DEFAULT_API_VERSION = '2024-05-01-preview';

export function azureFoundryPath(operation: OpenAIOperation, target: Candidate): string {
  const version = target.endpoint.apiVersion ?? AZURE_FOUNDRY_DEFAULT_API_VERSION;
  // The inference API names its model list `/info` (the deployment behind a serverless host).
  return `/${operation === 'models' ? 'info' : operation}?api-version=${encodeURIComponent(version)}`;
}

/**
 * The URLs the portal shows that are not the inference root: an Azure OpenAI resource
 * (`*.openai.azure.com`: provider `azure`), a full operation URL, a query, or a Foundry resource
 * without its `/models` path.
 */
export function checkAzureFoundryEndpoint(endpoint: EndpointConfig): string | undefined {
  const baseUrl = endpoint.baseUrl;
  if (!baseUrl) return 'an Azure AI Foundry endpoint needs its baseUrl: the resource\'s model inference root, "https://NAME.services.ai.azure.com/models"';
  const parsed = parseBaseUrl(baseUrl);
  if (!parsed) return undefined;
  const { url, path } = parsed;
  if (url.hostname.endsWith('.openai.azure.com')) return `${url.hostname} is an Azure OpenAI resource: use provider "azure" for it`;
  if (url.search || /\/(chat\/completions|embeddings|info)$/.test(path)) return `an Azure AI Foundry base URL is the inference root ("${url.origin}${path.replace(/\/(chat\/completions|embeddings|info)$/, '')}"): the operation and the api-version are added per request`;
  if (url.hostname.endsWith('.services.ai.azure.com') && path !== '/models') return `an Azure AI Foundry resource's model inference root is "${url.origin}/models"`;
  return undefined;
}

export const azureFoundryProvider = defineOpenAIFamilyProvider({
  id: 'azure-foundry',
  checkEndpoint: checkAzureFoundryEndpoint,
  defaultCapabilities: ['tools', 'json', 'stream'],
  pathFor: azureFoundryPath,
  authHeaders: (target): Record<string, string> => (target.apiKey ? { 'api-key': target.apiKey } : {}),
  keepReasoning: true,
});
