/**
 * Client authentication with gateway keys. These are the gateway's own keys, never the vendor
 * keys, and the client's Authorization header never travels upstream (the codecs build upstream
 * headers from the endpoint config alone).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export type KeyCheck = (authorization: string | undefined) => boolean;

/** No keys = open gateway (allowed on loopback only; see assertSafeBinding). */
export function createKeyCheck(keys: readonly string[]): KeyCheck {
  if (keys.length === 0) return () => true;
  // Equal-length digests make the comparison time independent of where the strings differ.
  const digests = keys.map(digest);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const presented = digest(match?.[1] ?? '');
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, presented) || ok;
    return ok && match !== null;
  };
}
