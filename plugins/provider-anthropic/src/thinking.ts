/**
 * Signed thinking blocks travel in `providerMetadata.anthropic.thinkingBlocks`: Anthropic
 * requires them back, signatures unchanged, when a tool loop continues after thinking.
 */
import type { ProviderMetadata } from '@switchyard/core';
import type { SignedThinking } from './wire-types.js';

export const PROVIDER_KEY = 'anthropic';

function isSignedThinking(value: unknown): value is SignedThinking {
  if (typeof value !== 'object' || value === null) return false;
  const block = value as Record<string, unknown>;
  if (block.type === 'thinking') return typeof block.thinking === 'string' && typeof block.signature === 'string' && block.signature.length > 0;
  return block.type === 'redacted_thinking' && typeof block.data === 'string';
}

/** The thinking blocks an assistant message carries; unsigned ones are dropped (Anthropic would reject them). */
export function thinkingBlocksOf(metadata: ProviderMetadata | undefined): SignedThinking[] {
  const blocks = metadata?.[PROVIDER_KEY]?.thinkingBlocks;
  if (!Array.isArray(blocks)) return [];
  return blocks.filter(isSignedThinking).map((b) => (b.type === 'thinking' ? { type: 'thinking', thinking: b.thinking, signature: b.signature } : { type: 'redacted_thinking', data: b.data }));
}
