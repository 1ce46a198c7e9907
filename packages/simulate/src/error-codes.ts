/** @switchyard/simulate's coded errors: registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const SIMULATION_ERRORS = defineErrorCodes('@switchyard/simulate', {
  /** A scenario file that cannot be read. */
  SWITCHYARD_ERR_SIMULATION_READ: 'config',
  /** A scenario file that is not YAML. */
  SWITCHYARD_ERR_SIMULATION_YAML: 'config',
  /** A scenario that does not validate. */
  SWITCHYARD_ERR_SIMULATION_SCENARIO: 'config',
  /** Fault options that do not validate. */
  SWITCHYARD_ERR_CHAOS_OPTIONS: 'config',
  /** A fault the simulator does not know. */
  SWITCHYARD_ERR_CHAOS_UNKNOWN_FAULT: 'config',
  /** A vendor the simulator has no wire for. */
  SWITCHYARD_ERR_CHAOS_UNKNOWN_VENDOR: 'config',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof SIMULATION_ERRORS> {}
}
