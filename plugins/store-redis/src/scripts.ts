/**
 * The operations that must be atomic on the server, as Lua scripts run by EVALSHA (EVAL once
 * when the server has not seen a script yet). Each names its single key in KEYS[1].
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface LuaScript {
  source: string;
  sha: string;
}

function lua(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * ARGV: amount, expiry ('' keeps the current one, 'persist' drops it, else milliseconds).
 * A value that is not a number counts as 0 and is replaced, as in MemoryStateStore.
 */
export const INCREMENT = lua(`
local value = redis.pcall('INCRBYFLOAT', KEYS[1], ARGV[1])
if type(value) == 'table' and value.err then
  redis.call('SET', KEYS[1], '0', 'KEEPTTL')
  value = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
end
if ARGV[2] == 'persist' then
  redis.call('PERSIST', KEYS[1])
elseif ARGV[2] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return value
`);

/** ARGV: holder (JSON), lease ms. Free → taken; held by the same holder → extended. */
export const ACQUIRE_LEASE = lua(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

/** ARGV: holder (JSON). Deletes the lease only while that holder still holds it. */
export const RELEASE_LEASE = lua(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * ARGV: expected JSON ('' = the key is absent), next JSON ('' = delete), expiry ms ('' = none).
 * JSON text is never empty, so '' cannot be mistaken for a value.
 */
export const COMPARE_AND_SET = lua(`
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
elseif ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
`);

export async function runScript(client: Redis, script: LuaScript, key: string, args: (string | number)[]): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, 1, key, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.eval(script.source, 1, key, ...args);
  }
}
