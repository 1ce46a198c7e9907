/** Events of a host that serves a pipeline (the gateway, the CLI's server), observed by plugins (metrics). */
import type { SwitchyardError } from '@switchyard/core';

/** The host refused a request before it reached the pipeline: load shed. */
export interface RequestShed { inFlight: number; limit: number }
/** The host reloaded its config (a SIGHUP, a file change): whether the new one is serving. */
export interface ConfigReload { ok: boolean; error?: SwitchyardError }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    'request:shed': [RequestShed];
    'config:reload': [ConfigReload];
  }
}
