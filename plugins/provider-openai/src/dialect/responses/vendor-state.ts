/**
 * Vendor state a conversation must carry to its next turn (Anthropic's signed thinking blocks,
 * Gemini's thought signatures: the unified message's `providerMetadata`) has no place in a
 * Responses item, except the one OpenAI made for opaque state: a reasoning item's
 * `encrypted_content`. An answer with reasoning or function calls ends with such an item, its
 * content ours (`switchyard.v1:` and base64url JSON); a client that sends the output back, as
 * Responses clients do, sends the state with it, and the decoder puts it back on the assistant
 * message of that turn. OpenAI never sees these items (it could not decrypt them).
 */
import type { ProviderMetadata } from '@switchyard/core';
import { newId } from './ids.js';
import type { ReasoningItem, ResponseItem } from './wire-types.js';

const PREFIX = 'switchyard.v1:';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The reasoning item that carries a turn's vendor state. */
export function vendorStateItem(metadata: ProviderMetadata): ReasoningItem {
  return { id: newId('rs'), type: 'reasoning', summary: [], encrypted_content: PREFIX + Buffer.from(JSON.stringify(metadata)).toString('base64url'), status: 'completed' };
}

/** The vendor state an item carries, if it is one of ours. */
export function vendorStateOf(item: ResponseItem): ProviderMetadata | undefined {
  const text = item.encrypted_content;
  if (item.type !== 'reasoning' || typeof text !== 'string' || !text.startsWith(PREFIX)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8'));
    if (!isObject(value) || !Object.values(value).every(isObject)) return undefined;
    return value as ProviderMetadata;
  } catch {
    return undefined;
  }
}

/** `into` with `more` merged in, vendor by vendor. */
export function mergeMetadata(into: ProviderMetadata | undefined, more: ProviderMetadata): ProviderMetadata {
  const out: ProviderMetadata = Object.assign({}, into);
  for (const vendor in more) out[vendor] = Object.assign({}, out[vendor], more[vendor]);
  return out;
}

/**
 * Items as a Responses API vendor that keeps no state can take them (the gateway asks OpenAI
 * with `store: false`): reasoning items that are ours, or that carry no `encrypted_content`
 * (OpenAI would look them up and find nothing), are left out. The same array when nothing is.
 */
export function statelessItems(items: ResponseItem[]): ResponseItem[] {
  const keep = (item: ResponseItem) => item.type !== 'reasoning' || (typeof item.encrypted_content === 'string' && item.encrypted_content.length > 0 && !item.encrypted_content.startsWith(PREFIX));
  return items.every(keep) ? items : items.filter(keep);
}
