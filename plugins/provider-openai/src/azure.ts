/**
 * Azure OpenAI. The endpoint's baseUrl is the resource root (`https://NAME.openai.azure.com`),
 * the deployment's `model` is the Azure deployment name, `apiVersion` comes from the endpoint,
 * and the key travels in the `api-key` header. `apiVersion: v1` selects Azure's newer
 * `/openai/v1` surface, where the deployment goes in the body's `model` instead of the path.
 */
import type { Candidate } from '@switchyard/core';
import { defineOpenAIFamilyProvider, type OpenAIOperation } from './provider.js';
import { AZURE_CHAT_FIELDS } from './request.js';

/** The newest generally available data-plane version at the time of writing. */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/** `/openai` unless the configured baseUrl already ends with it. */
function openaiPrefix(target: Candidate): string {
  return /\/openai\/?$/.test(target.endpoint.baseUrl ?? '') ? '' : '/openai';
}

export function azurePath(operation: OpenAIOperation, target: Candidate): string {
  const version = target.endpoint.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  const prefix = openaiPrefix(target);
  if (version === 'v1') return `${prefix}/v1/${operation}`;
  const query = `?api-version=${encodeURIComponent(version)}`;
  // The Responses API takes the deployment in the body's `model`, not in the path.
  if (operation === 'models' || operation === 'responses') return `${prefix}/${operation}${query}`;
  return `${prefix}/deployments/${encodeURIComponent(target.model)}/${operation}${query}`;
}

/**
 * The deployment goes in the path from each deployment's `model`: a base URL copied from the
 * portal's "target URI" (`…/openai/deployments/NAME/chat/completions?api-version=…`) would
 * put it there twice.
 */
export function checkAzureBaseUrl(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  const at = baseUrl.search(/\/deployments(\/|$)|\/chat\/completions|\?api-version=/);
  if (at < 0) return undefined;
  const root = baseUrl.slice(0, at).replace(/\/openai\/?$/, '');
  return `an Azure base URL is the resource root ("${root}"): the deployment comes from each deployment's model and the version from apiVersion`;
}

export const azureProvider = defineOpenAIFamilyProvider({
  id: 'azure',
  checkEndpoint: (endpoint) => checkAzureBaseUrl(endpoint.baseUrl),
  defaultCapabilities: ['tools', 'json', 'vision', 'stream'],
  pathFor: azurePath,
  authHeaders: (target): Record<string, string> => (target.apiKey ? { 'api-key': target.apiKey } : {}),
  allowedFields: AZURE_CHAT_FIELDS,
  keepReasoning: false,
});
