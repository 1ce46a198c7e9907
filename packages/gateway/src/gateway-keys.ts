/**
 * Client authentication with gateway keys. These are the gateway's own keys, never the vendor
 * keys, and the client's Authorization header never travels upstream (the codecs build upstream
 * headers from the endpoint config alone).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** True when `presented` (the key as the client sent it, without `Bearer `) is a gateway key. */
export type KeyCheck = (presented: string | undefined) => boolean;

/** No keys = open gateway (allowed on loopback only; see assertSafeBinding). */
export function createKeyCheck(keys: readonly string[]): KeyCheck {
  if (keys.length === 0) return () => true;
  // Equal-length digests make the comparison time independent of where the strings differ.
  const digests = keys.map(digest);
  return (presented) => {
    const given = digest(presented ?? '');
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, given) || ok;
    return ok && presented !== undefined && presented.length > 0;
  };
}
