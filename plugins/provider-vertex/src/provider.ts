/**
 * The `vertex` provider: Claude (rawPredict, Messages pass-through) and Gemini (the Gemini
 * codec) on Google Vertex AI, authorised with google-auth-library access tokens.
 */
import { anthropicProvider, classifyAnthropicError, claudeDrops } from '@switchyard/provider-anthropic';
import { geminiProvider } from '@switchyard/provider-gemini';
import { prefillRequest } from '@switchyard/core/internal';
import { defineProvider, type Candidate, type EndpointConfig, type ProviderHttpResponse, type ProviderV1 } from '@switchyard/core';
import { existsSync } from 'node:fs';
import { credentialFile, describeGoogleCredentialSource, VertexCredentials } from './auth.js';
import { buildClaudeCountTokensRequest, buildClaudeRequest, VERTEX_DEFAULT_BETAS } from './claude.js';
import { buildGeminiCountTokensRequest, onVertex } from './gemini.js';
import { isClaude, vertexBaseUrl, vertexLocation, vertexProject } from './location.js';

/** An Anthropic error body (`{"type":"error","error":{…}}`) rather than Google's `{"error":{"status":…}}`. */
function isAnthropicError(response: ProviderHttpResponse): boolean {
  return (response.json as { type?: unknown } | undefined)?.type === 'error';
}

export function createVertexProvider() {
  const credentials = new WeakMap<EndpointConfig, VertexCredentials>();
  const credentialsOf = (endpoint: EndpointConfig): VertexCredentials => {
    let c = credentials.get(endpoint);
    if (!c) credentials.set(endpoint, (c = new VertexCredentials(endpoint)));
    return c;
  };
  const classify = (response: ProviderHttpResponse, target: Candidate) => {
    if (response.status === 401) credentialsOf(target.endpoint).invalidate();
    const error = isClaude(target.model) && isAnthropicError(response) ? classifyAnthropicError(response, target) : geminiProvider.classifyError(response, target);
    error.provider = 'vertex';
    return error;
  };

  return defineProvider({
    specificationVersion: 'v1',
    id: 'vertex',
    defaultCapabilities: ['tools', 'vision', 'stream'],
    baseUrlFor: vertexBaseUrl,
    // Each publisher's own wire format: a Messages client's body goes on to Claude, a Gemini API client's to Gemini.
    speaks: (format: string, target: Candidate) => (isClaude(target.model) ? anthropicProvider : geminiProvider).speaks!(format, target),
    unsupported: (request, target) => (isClaude(target.model) ? anthropicProvider.unsupported?.(request, target) : geminiProvider.unsupported?.(request, target)),
    // Betas Claude on Vertex does not take (and the fields they turn on) are sent without, and said so.
    drops: (request, target) => (isClaude(target.model) ? claudeDrops(request, target, VERTEX_DEFAULT_BETAS) : undefined),
    buildRequest(request, target, options) {
      return isClaude(target.model) ? buildClaudeRequest(request, target, options.stream) : onVertex(geminiProvider.buildRequest(request, target, options), target);
    },
    // Claude's continuation and thinking-signature repair are Anthropic's (its thinking is signed per issuer).
    continuation: (request, partialText, target, from) => (isClaude(target.model) ? anthropicProvider.continuation!(request, partialText, target, from) : prefillRequest(request, partialText)),
    repair: (request, error, target) => (isClaude(target.model) ? anthropicProvider.repair?.(request, error, target) : undefined),
    parseResponse: (response, target) => (isClaude(target.model) ? anthropicProvider : geminiProvider).parseResponse(response, target),
    createStreamDecoder: (target, request) => (isClaude(target.model) ? anthropicProvider : geminiProvider).createStreamDecoder(target, request),
    async authorize(_wire, target): Promise<Record<string, string>> {
      // An API key (Vertex express mode) travels in the codec's own x-goog-api-key header.
      if (target.apiKey) return {};
      return { authorization: `Bearer ${await credentialsOf(target.endpoint).token()}` };
    },
    classifyError: classify,
    buildCountTokensRequest: (request, target) => (isClaude(target.model) ? buildClaudeCountTokensRequest(request, target) : buildGeminiCountTokensRequest(request, target)),
    parseCountTokensResponse: (response, target) => (isClaude(target.model) ? anthropicProvider : geminiProvider).parseCountTokensResponse!(response, target),
    describeEndpoint(endpoint) {
      const problems: string[] = [];
      if (!vertexProject(endpoint)) problems.push('project: vertex needs a Google Cloud project (the endpoint project, or GOOGLE_CLOUD_PROJECT)');
      if (!vertexLocation(endpoint)) problems.push('location: vertex needs a location such as europe-west1 or global (the endpoint location, or GOOGLE_CLOUD_LOCATION)');
      const file = credentialFile(endpoint);
      if (file && !endpoint.apiKey && !existsSync(file)) problems.push(`options.keyFile: no credentials file at ${file}`);
      return { problems, credentials: describeGoogleCredentialSource(endpoint) };
    },
    probe(target) {
      // Counting tokens is free and needs a valid token: proof of the channel at no cost.
      const ping = { model: target.model, messages: [{ role: 'user' as const, content: 'ping' }] };
      return isClaude(target.model) ? buildClaudeCountTokensRequest(ping, target) : buildGeminiCountTokensRequest(ping, target);
    },
  } satisfies ProviderV1);
}

export const vertexProvider = createVertexProvider();
