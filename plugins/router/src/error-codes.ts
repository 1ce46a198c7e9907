/** @switchyard/plugin-router's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const ROUTER_ERRORS = defineErrorCodes('@switchyard/plugin-router', {
  /** No deployment of the model has a capability the request needs. */
  SWITCHYARD_ERR_MISSING_CAPABILITY: 'bad-request',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof ROUTER_ERRORS> {}
}
