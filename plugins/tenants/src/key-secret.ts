/**
 * Virtual key secrets: `sy-<id>.<secret>`, where the id (`key_` and 16 hex digits) names the
 * record and the secret is 32 random bytes (base64url). Only a hash is stored. The secret is
 * random, so one SHA-256 (salted with the id) is as strong as a slow password hash here, and
 * keeps the check within microseconds.
 *
 * Every check runs the same work whatever was wrong (malformed key, unknown id, wrong secret):
 * one hash and one constant-time comparison, against a random stand-in hash when there is no
 * record, so the time of the answer says nothing about which part failed.
 */
import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a string. Every request hashes the key it presents, twice unless a declared key
 * matched (constant work whatever was wrong): Node's one-shot `crypto.hash` (20.12 and later; read
 * from the namespace, which an older Node lacks) costs 0.9 µs where a Hash object costs 1.5.
 */
const oneShot = nodeCrypto.hash as typeof nodeCrypto.hash | undefined;
const sha256: (value: string) => Buffer = oneShot ? (value) => oneShot('sha256', value, 'buffer') : (value) => createHash('sha256').update(value).digest();

export const KEY_PREFIX = 'sy-';
const ID_PATTERN = /^key_[0-9a-f]{16}$/;
const PRESENTED = /^sy-(key_[0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

/** What an unparseable key is looked up as: no record ever has this id. */
export const NO_SUCH_ID = 'key_none';

export function newKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

export function isKeyId(value: string): boolean {
  return ID_PATTERN.test(value);
}

export function newSecret(id: string): { presented: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { presented: `${KEY_PREFIX}${id}.${secret}`, hash: hashSecret(id, secret).toString('base64url') };
}

export function hashSecret(id: string, secret: string): Buffer {
  return sha256(`${id}\0${secret}`);
}

/** The id and secret of a presented key; a malformed one is looked up as NO_SUCH_ID (the same path). */
export function parsePresented(presented: string): { id: string; secret: string } {
  const match = PRESENTED.exec(presented);
  return match ? { id: match[1], secret: match[2] } : { id: NO_SUCH_ID, secret: presented };
}

/** A hash nothing matches: what a missing record compares against. */
export const STAND_IN_HASH = randomBytes(32);

/** Constant-time: true when `secret` of key `id` hashes to `expected` (32 bytes). */
export function secretMatches(id: string, secret: string, expected: Buffer): boolean {
  return timingSafeEqual(hashSecret(id, secret), expected);
}

/** A secret of a config-declared key (any string), hashed for constant-time lookups. */
export function digestOf(value: string): Buffer {
  return sha256(value);
}
