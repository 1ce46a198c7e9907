/**
 * The `bedrock` provider: Claude through InvokeModel with the Messages body, signed with SigV4
 * (or a Bedrock API key), streamed in AWS event-stream frames.
 */
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { defineProvider, SwitchyardError, type Candidate, type EndpointConfig, type ProviderV1 } from '@switchyard/core';
import type { SignatureV4 } from '@smithy/signature-v4';
import { classifyBedrockError } from './classify-error.js';
import { defaultCredentialSource, describeCredentialSource, REFRESH_BEFORE_MS, RefreshingCredentials, type CredentialOptions } from './credentials.js';
import { bedrockBaseUrl, bedrockRegion, speaksMessages } from './endpoint-url.js';
import { EventStreamFrames, readConverseFrame, readInvokeFrame } from './event-stream.js';
import { buildInvokeCountTokensRequest, buildInvokeRequest, parseCountTokensResponse } from './invoke.js';
import { createSigner, sigV4Headers } from './sign.js';

export type BedrockProviderOptions = CredentialOptions;

/** Exceptions that mean the signing credentials themselves are no good (not the request). */
const REFUSED_CREDENTIALS = new Set(['ExpiredTokenException', 'UnrecognizedClientException', 'InvalidSignatureException']);

interface Channel {
  credentials: RefreshingCredentials;
  signer: SignatureV4;
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
      if (!speaksMessages(target.model, target.endpoint)) return { path: 'model', reason: `${target.model} is not an Anthropic model (bedrock speaks InvokeModel with the Messages body only)` };
      return anthropicProvider.unsupported?.(request, target);
    },
    buildRequest(request, target, { stream }) {
      return buildInvokeRequest(request, target, stream);
    },
    parseResponse(response, target) {
      return anthropicProvider.parseResponse(response, target);
    },
    createStreamDecoder(target, request) {
      return anthropicProvider.createStreamDecoder(target, request);
    },
    createFrameDecoder(target) {
      return new EventStreamFrames(target, speaksMessages(target.model, target.endpoint) ? readInvokeFrame : readConverseFrame);
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
    buildCountTokensRequest: buildInvokeCountTokensRequest,
    parseCountTokensResponse,
    describeEndpoint(endpoint) {
      const problems = endpoint.baseUrl || bedrockRegion(endpoint) ? [] : ['region: bedrock needs a region (the endpoint region, or AWS_REGION)'];
      return { problems, credentials: describeCredentialSource(endpoint) };
    },
    probe(target) {
      // CountTokens is free and needs valid credentials: a proof of the channel that costs nothing.
      return buildInvokeCountTokensRequest({ model: target.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }, target);
    },
  } satisfies ProviderV1);
}

export const bedrockProvider = createBedrockProvider();
