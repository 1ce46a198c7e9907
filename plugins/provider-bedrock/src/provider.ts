/**
 * The `bedrock` provider: Claude through InvokeModel with the Messages body, signed with SigV4
 * (or a Bedrock API key), streamed in AWS event-stream frames.
 */
import { anthropicProvider, claudeDrops } from '@switchyard/provider-anthropic';
import { prefillRequest } from '@switchyard/core/internal';
import { defineProvider, SwitchyardError, type Candidate, type ChatRequest, type ProviderRequest, type Unsupported, type EndpointConfig, type ProviderV1 } from '@switchyard/core';
import type { SignatureV4 } from '@smithy/signature-v4';
import { classifyBedrockError } from './classify-error.js';
import { defaultCredentialSource, describeCredentialSource, REFRESH_BEFORE_MS, RefreshingCredentials, type CredentialOptions } from './credentials.js';
import { bedrockBaseUrl, bedrockRegion, speaksMessages } from './endpoint-url.js';
import { EventStreamFrames, readConverseFrame, readInvokeFrame } from './event-stream.js';
import { BEDROCK_DEFAULT_BETAS } from './betas.js';
import { buildInvokeCountTokensRequest, buildInvokeRequest, foundationModel, parseCountTokensResponse } from './invoke.js';
import { createSigner, sigV4Headers } from './sign.js';
import { buildConverseCountTokensRequest, buildConverseRequest, ConverseStreamDecoder, parseConverseResponse } from './converse.js';

export type BedrockProviderOptions = CredentialOptions;

/** A unified request part Converse has no form for (audio, files), found before any call. */
function converseUnsupported(request: ChatRequest): Unsupported | undefined {
  for (const [i, message] of request.messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [j, part] of message.content.entries()) {
      if (part.type !== 'text' && part.type !== 'image_url') return { path: `messages[${i}].content[${j}]`, reason: `a "${part.type}" part (bedrock Converse takes text and images here)` };
    }
  }
  return undefined;
}

/** Exceptions that mean the signing credentials themselves are no good (not the request). */
const REFUSED_CREDENTIALS = new Set(['ExpiredTokenException', 'UnrecognizedClientException', 'InvalidSignatureException']);

interface Channel {
  credentials: RefreshingCredentials;
  signer: SignatureV4;
}

function buildCountTokensRequest(request: ChatRequest, target: Candidate): ProviderRequest {
  return speaksMessages(target.model, target.endpoint) ? buildInvokeCountTokensRequest(request, target) : buildConverseCountTokensRequest(request, target, foundationModel(target.model));
}

export function createBedrockProvider(options: BedrockProviderOptions = {}) {
  const now = options.now ?? Date.now;
  const source = options.source ?? defaultCredentialSource;
  // One credential cache and signer per endpoint object (a reload brings new ones).
  const channels = new WeakMap<EndpointConfig, Channel>();
  const channelOf = (endpoint: EndpointConfig): Channel => {
    let channel = channels.get(endpoint);
    if (!channel) {
      const region = bedrockRegion(endpoint);
      if (!region) throw new SwitchyardError('config', `endpoint ${endpoint.name}: bedrock needs a region (endpoint region or AWS_REGION)`, { code: 'SWITCHYARD_ERR_CONFIG' });
      const credentials = new RefreshingCredentials(source(endpoint), now, options.refreshBeforeMs ?? REFRESH_BEFORE_MS);
      channel = { credentials, signer: createSigner(region, () => credentials.get()) };
      channels.set(endpoint, channel);
    }
    return channel;
  };

  return defineProvider({
    specificationVersion: 'v1',
    id: 'bedrock',
    defaultCapabilities: ['tools', 'vision', 'prefill', 'stream'],
    baseUrlFor: bedrockBaseUrl,
    speaks: (format: string, target: Candidate) => anthropicProvider.speaks!(format, target) && speaksMessages(target.model, target.endpoint),
    unsupported(request, target) {
      return speaksMessages(target.model, target.endpoint) ? anthropicProvider.unsupported?.(request, target) : converseUnsupported(request);
    },
    buildRequest(request, target, { stream }) {
      return speaksMessages(target.model, target.endpoint) ? buildInvokeRequest(request, target, stream) : buildConverseRequest(request, target, stream);
    },
    // Betas Bedrock does not take (and the fields they turn on) are sent without, and said so.
    drops: (request, target) => (speaksMessages(target.model, target.endpoint) ? claudeDrops(request, target, BEDROCK_DEFAULT_BETAS) : undefined),
    // Claude's continuation and thinking-signature repair are Anthropic's (its thinking is signed per issuer).
    continuation: (request, partialText, target, from) => (speaksMessages(target.model, target.endpoint) ? anthropicProvider.continuation!(request, partialText, target, from) : prefillRequest(request, partialText)),
    repair: (request, error, target) => (speaksMessages(target.model, target.endpoint) ? anthropicProvider.repair?.(request, error, target) : undefined),
    parseResponse(response, target) {
      return speaksMessages(target.model, target.endpoint) ? anthropicProvider.parseResponse(response, target) : parseConverseResponse(response, target);
    },
    createStreamDecoder(target, request) {
      return speaksMessages(target.model, target.endpoint) ? anthropicProvider.createStreamDecoder(target, request) : new ConverseStreamDecoder();
    },
    createFrameDecoder(target, limits) {
      return new EventStreamFrames(target, speaksMessages(target.model, target.endpoint) ? readInvokeFrame : readConverseFrame, limits?.maxEventChars);
    },
    async authorize(wire, target) {
      if (target.apiKey) return { authorization: `Bearer ${target.apiKey}` };
      return sigV4Headers(channelOf(target.endpoint).signer, wire);
    },
    classifyError(response, target) {
      const error = classifyBedrockError(response, target);
      if (!target.apiKey && error.vendorCode !== undefined && REFUSED_CREDENTIALS.has(error.vendorCode)) channels.get(target.endpoint)?.credentials.invalidate();
      return error;
    },
    buildCountTokensRequest,
    parseCountTokensResponse,
    describeEndpoint(endpoint) {
      const problems = endpoint.baseUrl || bedrockRegion(endpoint) ? [] : ['region: bedrock needs a region (the endpoint region, or AWS_REGION)'];
      return { problems, credentials: describeCredentialSource(endpoint) };
    },
    probe(target) {
      // CountTokens is free and needs valid credentials: a proof of the channel that costs nothing.
      return buildCountTokensRequest({ model: target.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }, target);
    },
  } satisfies ProviderV1);
}

export const bedrockProvider = createBedrockProvider();
