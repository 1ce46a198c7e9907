/**
 * Where the two AI SDK model specifications differ for what a pipeline returns: the shape of
 * finish reasons, usage and warnings. LanguageModelV2 is what ai@5 runs; LanguageModelV3 is
 * ai@6's own (ai@6 also runs V2, in a compatibility mode that warns).
 */
import type { LanguageModelV3FinishReason, LanguageModelV3Usage, SharedV3Warning } from '@ai-sdk/provider';
// V2 types from the @ai-sdk/provider major that ai@5 itself uses: @ai-sdk/provider@3 also
// declares V2 types, but ai@5 does not accept them (their JSONValue differs).
import type { LanguageModelV2CallWarning, LanguageModelV2FinishReason, LanguageModelV2Usage } from '@ai-sdk/provider-v2';
import type { FinishReason, Usage } from '@switchyard/core';
import type { Unsupported } from './prompt.js';

export type SpecificationVersion = 'v2' | 'v3';

export interface Dialect<F, U, W> {
  readonly version: SpecificationVersion;
  finish(reason: FinishReason | null | undefined, raw?: string): F;
  usage(usage: Usage | undefined): U;
  warning(unsupported: Unsupported): W;
}

type Unified = LanguageModelV3FinishReason['unified'];

const UNIFIED: Record<FinishReason, Unified> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
  other: 'other',
};

export const v3: Dialect<LanguageModelV3FinishReason, LanguageModelV3Usage, SharedV3Warning> = {
  version: 'v3',
  finish: (reason, raw) => ({ unified: reason ? UNIFIED[reason] ?? 'other' : 'other', raw: raw ?? reason ?? undefined }),
  usage: (u) => {
    const cached = u?.prompt_tokens_details?.cached_tokens;
    const reasoning = u?.completion_tokens_details?.reasoning_tokens;
    return {
      inputTokens: { total: u?.prompt_tokens, noCache: u && cached !== undefined ? u.prompt_tokens - cached : u?.prompt_tokens, cacheRead: cached, cacheWrite: u?.prompt_tokens_details?.cache_write_tokens },
      outputTokens: { total: u?.completion_tokens, text: u && reasoning !== undefined ? u.completion_tokens - reasoning : u?.completion_tokens, reasoning },
    };
  },
  warning: ({ feature, details }) => ({ type: 'unsupported', feature, ...(details ? { details } : {}) }),
};

export const v2: Dialect<LanguageModelV2FinishReason, LanguageModelV2Usage, LanguageModelV2CallWarning> = {
  version: 'v2',
  finish: (reason) => (reason ? UNIFIED[reason] ?? 'other' : 'unknown'),
  usage: (u) => ({
    inputTokens: u?.prompt_tokens,
    outputTokens: u?.completion_tokens,
    totalTokens: u?.total_tokens,
    ...(u?.completion_tokens_details?.reasoning_tokens !== undefined ? { reasoningTokens: u.completion_tokens_details.reasoning_tokens } : {}),
    ...(u?.prompt_tokens_details?.cached_tokens !== undefined ? { cachedInputTokens: u.prompt_tokens_details.cached_tokens } : {}),
  }),
  warning: ({ feature, details }) => (feature === 'topK' ? { type: 'unsupported-setting', setting: 'topK', details } : { type: 'other', message: details ? `${feature}: ${details}` : feature }),
};
