/** Events of a host that serves a pipeline (the gateway, the CLI's server), observed by plugins (metrics). */
import type { SwitchyardError } from '@switchyard/core';

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    /** The host refused a request before it reached the pipeline: load shed. */
    'request:shed': [{ inFlight: number; limit: number }];
    'config:reload': [{ ok: boolean; error?: SwitchyardError }];
  }
}
