/**
 * A vendor's error answer is read only up to a cap: what classifies an error is in its first
 * kilobytes, and a 100 MB HTML error page must not cost the gateway 100 MB (or more) of memory.
 */
import type { TransportResponse } from './transport.js';

export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/** The first `limit` bytes of the body as text; the connection is dropped when there was more. */
export async function readErrorBodyText(res: TransportResponse, limit = ERROR_BODY_LIMIT_BYTES): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (res.text && Number.isFinite(declared) && declared <= limit) return res.text();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      const room = limit - bytes;
      text += decoder.decode(chunk.length > room ? chunk.subarray(0, room) : chunk, { stream: true });
      bytes += chunk.length;
      if (bytes >= limit) {
        res.discard();
        break;
      }
    }
  } catch {
    // A body cut short still classifies by status and what arrived.
  }
  return text + decoder.decode();
}
