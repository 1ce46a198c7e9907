/** Where an endpoint's Bedrock Runtime is: its `region`, else the environment's AWS region. */
import type { EndpointConfig } from '@switchyard/core';

export function bedrockRegion(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return endpoint.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
}

export function bedrockBaseUrl(endpoint: EndpointConfig): string | undefined {
  const region = bedrockRegion(endpoint);
  return region ? `https://bedrock-runtime.${region}.amazonaws.com` : undefined;
}

/**
 * Whether `model` is an Anthropic model on Bedrock (spoken with InvokeModel and the Messages
 * body): `anthropic.claude-…`, a cross-region inference profile `us.anthropic.…` /
 * `global.anthropic.…`, or an ARN naming one. Anything else goes through Converse; an
 * application inference profile ARN hides its model, so `options.api` can say which.
 */
export function speaksMessages(model: string, endpoint: EndpointConfig): boolean {
  const api = endpoint.options?.api;
  if (api === 'converse') return false;
  if (api === 'invoke') return true;
  return /(^|[./])anthropic\./.test(model);
}

/** The model id as a path segment (`:` in `…-v1:0` and `/` in ARNs are encoded). */
export function modelPath(model: string): string {
  return `/model/${encodeURIComponent(model)}`;
}
