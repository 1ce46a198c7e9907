/** @switchyard/plugin-model-limits's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const MODEL_LIMITS_ERRORS = defineErrorCodes('@switchyard/plugin-model-limits', {
  /** A parameter above the limits of every deployment of the model. */
  SWITCHYARD_ERR_PARAMETER_LIMIT: 'invalid-request',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof MODEL_LIMITS_ERRORS> {}
}
