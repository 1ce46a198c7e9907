/** @switchyard/chaos's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const CHAOS_ERRORS = defineErrorCodes('@switchyard/chaos', {
  /** A request no chaos handler answers. */
  SWITCHYARD_ERR_MSW_UNHANDLED: 'config',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof CHAOS_ERRORS> {}
}
