/** Random ids for request ids and the objects a dialect names (`resp_…`, `msg_…`). */
import { randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
/** 4 KB of random bytes, refilled when used up: an id is a hex slice of it, not a call into the CSPRNG each. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `<prefix>_<32 hex digits>`: 128 random bits. */
export function randomId(prefix: string): string {
  if (poolOffset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const id = pool.toString('hex', poolOffset, poolOffset + ID_BYTES);
  poolOffset += ID_BYTES;
  return `${prefix}_${id}`;
}
