/**
 * Test-only copies of the OpenAI provider with the bugs that once passed the conformance suite
 * unnoticed. Never exported or shipped: `planted-bugs.test.ts` runs the suite against them and
 * expects it to fail exactly where the bug is.
 */
import { defineProvider, type ProviderRequest, type ProviderV1 } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';

function rewriteBody(provider: ProviderV1, id: string, rewrite: (body: Record<string, any>) => void): ProviderV1 {
  return defineProvider({
    ...provider,
    id,
    buildRequest(request, target, options): ProviderRequest {
      const built = provider.buildRequest(request, target, options);
      const body = JSON.parse(built.body ?? '{}') as Record<string, any>;
      rewrite(body);
      return { ...built, body: JSON.stringify(body) };
    },
  });
}

/** Drops the caller's token limit: answers run to the model's maximum length and cost. */
export const dropsMaxTokens = rewriteBody(openaiProvider, 'openai', (body) => {
  delete body.max_tokens;
});

/** Sends the system prompt as a user turn: the instructions lose their authority. */
export const systemAsUser = rewriteBody(openaiProvider, 'openai', (body) => {
  for (const m of body.messages as { role: string }[]) if (m.role === 'system') m.role = 'user';
});

/** Puts the key in the query string (`?api_key=`), where access logs and proxies record it. */
export const keyInQueryString: ProviderV1 = defineProvider({
  ...openaiProvider,
  buildRequest(request, target, options): ProviderRequest {
    const built = openaiProvider.buildRequest(request, target, options);
    const { authorization: _dropped, ...headers } = built.headers;
    return { ...built, path: `${built.path}?api_key=${encodeURIComponent(target.apiKey ?? '')}`, headers };
  },
  probe(target): ProviderRequest {
    return { method: 'GET', path: `/models?api_key=${encodeURIComponent(target.apiKey ?? '')}`, headers: {} };
  },
});
