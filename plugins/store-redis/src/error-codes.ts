/** @switchyard/store-redis's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const REDIS_STORE_ERRORS = defineErrorCodes('@switchyard/store-redis', {
  /** Options of the Redis store that cannot work. */
  SWITCHYARD_ERR_STORE_OPTIONS: 'config',
  /** A store call with an argument Redis cannot take. */
  SWITCHYARD_ERR_STORE_ARGUMENT: 'plugin',
  /** A Redis URL that does not parse. */
  SWITCHYARD_ERR_REDIS_URL: 'config',
  /** Durable records asked of a Redis that does not persist them (no AOF / RDB). */
  SWITCHYARD_ERR_REDIS_NOT_DURABLE: 'config',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof REDIS_STORE_ERRORS> {}
}
