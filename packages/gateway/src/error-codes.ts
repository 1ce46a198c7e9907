/** @switchyard/gateway's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const GATEWAY_ERRORS = defineErrorCodes('@switchyard/gateway', {
  /** A listen address off loopback without the flag that allows it. */
  SWITCHYARD_ERR_CONFIG_UNSAFE_BIND: 'config',
  /** The gateway is draining: new requests are refused. */
  SWITCHYARD_ERR_SHUTTING_DOWN: { kind: 'cancelled', status: 503 },
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof GATEWAY_ERRORS> {}
}
