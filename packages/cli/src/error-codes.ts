/** @switchyard/cli's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const CLI_ERRORS = defineErrorCodes('@switchyard/cli', {
  /** An env file that cannot be read or parsed. */
  SWITCHYARD_ERR_ENV_FILE: 'config',
  /** A vendor bill `switchyard usage --reconcile` cannot read. */
  SWITCHYARD_ERR_VENDOR_BILL: 'config',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof CLI_ERRORS> {}
}
