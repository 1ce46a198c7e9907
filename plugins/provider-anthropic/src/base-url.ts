/**
 * Requests go to `{baseUrl}/messages`, so an Anthropic base URL ends with `/v1`; the URL the
 * vendors' own SDKs take (`https://api.anthropic.com`, DeepSeek's `…/anthropic`) does not, and
 * every request would then answer 404.
 */
export function checkAnthropicBaseUrl(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) return undefined;
  if (path === '' || path.endsWith('/anthropic') || url.hostname === 'api.anthropic.com') {
    return `an Anthropic base URL ends with /v1 (requests go to {baseUrl}/messages): write "${url.origin}${path}/v1"`;
  }
  return undefined;
}
