/**
 * The client always sees the gateway's response ids. A vendor's Responses answer passed through
 * (its JSON body, its stream's lifecycle events) names the vendor's own response id: it is
 * replaced by one the gateway makes, which is also the id the answer is stored under. The
 * vendor's id stays beside the stored turn (`StoredResponse.vendor`), with the deployment that
 * issued it: only that deployment could ever be asked about it.
 */
import { newId } from './ids.js';

/** The vendor's id and where it came from, kept beside a stored turn. */
export interface VendorResponse {
  id: string;
  /** The deployment that issued it (`endpoint/model`). */
  deployment: string;
}

const LEADING_ID = /^\s*\{\s*"id"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** The top-level `id` of a response body's JSON text (OpenAI writes it first; anything else is parsed). */
export function responseIdOf(text: string): string | undefined {
  const lead = LEADING_ID.exec(text);
  if (lead) return JSON.parse(lead[1]!) as string;
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** `text` with every `"<from>"` string replaced by `"<to>"` (the ids are opaque, so only whole JSON strings match). */
export function withIdReplaced(text: string, from: string, to: string): string {
  const quoted = JSON.stringify(to);
  // A `$` in a replacement would be read as a pattern (`$&`, `$1`): doubled, it is itself.
  return text.replaceAll(JSON.stringify(from), quoted.includes('$') ? quoted.replaceAll('$', '$$$$') : quoted);
}

/** A vendor's JSON answer with the gateway's id: the text the client gets, and the vendor's id. */
export function withGatewayId(text: string): { text: string; vendorId?: string; id?: string } {
  const vendorId = responseIdOf(text);
  if (vendorId === undefined) return { text };
  const id = newId('resp');
  return { text: withIdReplaced(text, vendorId, id), vendorId, id };
}
