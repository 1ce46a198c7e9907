/**
 * Claude on a cloud channel (Amazon Bedrock InvokeModel, Google Vertex AI rawPredict) takes the
 * Messages body with three differences: the model is named by the URL, streaming by the route,
 * and `anthropic_version` in the body names the cloud's API version. Everything else is the
 * client's body as it wrote it (pass-through.ts), so cache_control, thinking, tools and
 * context_management reach Claude on every channel.
 */
import type { Candidate, ChatRequest } from '@switchyard/core';
import { messagesOrigin, passThroughBody } from './pass-through.js';
import { buildMessagesBody } from './request.js';
import { clientBetas } from './betas.js';

export interface CloudMessagesBody {
  body: Record<string, unknown>;
  /** The client's `anthropic-beta` values (a Messages client's header), for the channel to filter. */
  betas: string[];
}

/** The Messages body for a cloud channel: `anthropic_version` first, no `model`, no `stream`. */
export function cloudMessagesBody(request: ChatRequest, target: Candidate, anthropicVersion: string): CloudMessagesBody {
  const origin = messagesOrigin(request);
  const source = origin ? passThroughBody(origin.body, target.model, false) : (buildMessagesBody(request, target, false) as unknown as Record<string, unknown>);
  const body: Record<string, unknown> = { anthropic_version: anthropicVersion };
  for (const key in source) {
    if (key === 'model' || key === 'stream' || key === 'anthropic_version' || !Object.hasOwn(source, key)) continue;
    body[key] = source[key];
  }
  return { body, betas: clientBetas(request) };
}
