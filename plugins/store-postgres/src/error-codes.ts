/** @switchyard/store-postgres's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const POSTGRES_STORE_ERRORS = defineErrorCodes('@switchyard/store-postgres', {
  /** Options of the PostgreSQL record store that cannot work (a bad URL, a bad table name). */
  SWITCHYARD_ERR_RECORDS_OPTIONS: 'config',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof POSTGRES_STORE_ERRORS> {}
}
