/**
 * Client authentication with gateway keys. These are the gateway's own keys, never the vendor
 * keys, and the client's Authorization header never travels upstream (the codecs build upstream
 * headers from the endpoint config alone).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** True when `presented` (the key as the client sent it, without `Bearer `) is a gateway key. */
export type KeyCheck = (presented: string | undefined) => boolean;

/** Which of the keys `presented` is (its index), or -1. */
export type KeyIndex = (presented: string | undefined) => number;

/** Constant-time: every key is compared, whichever matches. */
export function createKeyIndex(keys: readonly string[]): KeyIndex {
  // No keys: nothing to compare, nothing a timing could tell.
  if (keys.length === 0) return () => -1;
  // Equal-length digests make the comparison time independent of where the strings differ.
  const digests = keys.map(digest);
  return (presented) => {
    const given = digest(presented ?? '');
    let found = -1;
    for (let i = 0; i < digests.length; i++) if (timingSafeEqual(digests[i], given)) found = i;
    return presented !== undefined && presented.length > 0 ? found : -1;
  };
}

/** No keys = open gateway (allowed on loopback only; see assertSafeBinding). */
export function createKeyCheck(keys: readonly string[]): KeyCheck {
  if (keys.length === 0) return () => true;
  const index = createKeyIndex(keys);
  return (presented) => index(presented) >= 0;
}
