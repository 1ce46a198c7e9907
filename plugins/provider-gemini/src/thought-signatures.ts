/**
 * Where thought signatures live in unified messages. Gemini 3 rejects a follow-up request whose
 * function calls lack the signature it sent, so they must survive the round trip through
 * OpenAI-shaped history: `providerMetadata.gemini.thoughtSignature` (the message's first
 * signed call, or its text when it has no calls) and `toolCallSignatures` (per call id).
 */
import type { ChatMessage, ProviderMetadata, ToolCall } from '@switchyard/core';

export interface GeminiMessageMetadata {
  thoughtSignature?: string;
  toolCallSignatures?: Record<string, string>;
}

/**
 * Google's documented placeholder for function calls that Gemini did not produce (history from
 * another vendor after a failover): without it Gemini 3 answers 400.
 */
export const SKIP_SIGNATURE_VALIDATION = 'skip_thought_signature_validator';

export function geminiMetadata(meta: ProviderMetadata | undefined): GeminiMessageMetadata {
  const gemini = meta?.gemini;
  return typeof gemini === 'object' && gemini !== null ? (gemini as GeminiMessageMetadata) : {};
}

/** The signature sent back with one of an assistant message's tool calls. */
export function signatureForCall(message: ChatMessage, call: ToolCall, index: number): string | undefined {
  const own = geminiMetadata((call as ToolCall & { providerMetadata?: ProviderMetadata }).providerMetadata).thoughtSignature;
  if (own) return own;
  const meta = geminiMetadata(message.providerMetadata);
  return meta.toolCallSignatures?.[call.id] ?? (index === 0 ? meta.thoughtSignature : undefined);
}
