import { parseBaseUrl } from '@switchyard/core/wire';

/**
 * Requests go to `{baseUrl}/messages`, so an Anthropic base URL ends with `/v1`; the URL the
 * vendors' own SDKs take (`https://api.anthropic.com`, DeepSeek's `…/anthropic`) does not, and
 * every request would then answer 404.
 */
export function checkAnthropicBaseUrl(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  const parsed = parseBaseUrl(baseUrl);
  if (!parsed) return undefined;
  const { url, path } = parsed;
  if (path.endsWith('/v1')) return undefined;
  if (path === '' || path.endsWith('/anthropic') || url.hostname === 'api.anthropic.com') {
    return `an Anthropic base URL ends with /v1 (requests go to {baseUrl}/messages): write "${url.origin}${path}/v1"`;
  }
  return undefined;
}

/** Claude on Azure AI Foundry: the resource's `/anthropic/v1` root is required (there is no default resource). */
export function checkFoundryAnthropicEndpoint(endpoint: { baseUrl?: string }): string | undefined {
  const baseUrl = endpoint.baseUrl;
  if (!baseUrl) return 'a Claude on Azure AI Foundry endpoint needs its baseUrl: "https://NAME.services.ai.azure.com/anthropic/v1"';
  const parsed = parseBaseUrl(baseUrl);
  if (!parsed) return undefined;
  const { url, path } = parsed;
  if (path.endsWith('/messages')) return `a base URL is the Messages root, without /messages: write "${url.origin}${path.slice(0, -'/messages'.length)}"`;
  if (url.hostname.endsWith('.services.ai.azure.com') && path !== '/anthropic/v1') return `Claude on an Azure AI Foundry resource answers at "${url.origin}/anthropic/v1"`;
  return checkAnthropicBaseUrl(baseUrl);
}
