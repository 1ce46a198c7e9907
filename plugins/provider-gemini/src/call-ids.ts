/**
 * Gemini's AI Studio API sends function calls without ids, but OpenAI-shaped callers need one
 * per call to match tool results. The ids are derived from the response, so replaying the same
 * response gives the same ids (cache hits, tests, retries of a client's own history).
 */

/** FNV-1a, 32 bit: a short stable fingerprint for responses that carry no responseId. */
export function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

export function toolCallId(responseKey: string, index: number, vendorId?: string): string {
  return vendorId && vendorId.length > 0 ? vendorId : `call_${responseKey}_${index}`;
}
