/**
 * Who is calling: the identity a host (the gateway) authenticated, handed to the pipeline with
 * `CallOptions.caller` so every plugin can attribute a request (ledger, metrics, logs, traces,
 * budgets) without importing the plugin that issued the key. It never holds the secret.
 *
 * A caller's tags and tier are defaults for the request's own `switchyard` hints: tags merge
 * into `request.switchyard.tags` (the key's tags win, so a caller cannot leave a tag budget by
 * sending another value), and the tier applies when the request names none, so the router and
 * the hedge plugin route a team's requests as its key says.
 */
import { addFields, withField } from './copy-fields.js';
import { requestOriginOf, setRequestOrigin } from './request-origin.js';
import type { ChatRequest, SwitchyardRequestOptions } from './types.js';

export interface CallerIdentity {
  /** The gateway key's id (`key_…` for a virtual key, `server#0` for a `server.apiKeys` entry); never the secret. */
  readonly keyId: string;
  /** A readable name of the key (`team-a-ci`). */
  readonly keyName?: string;
  /** The team the key belongs to: budgets and reports roll up by it. */
  readonly team?: string;
  /** Tags every request of this caller carries. */
  readonly tags?: Readonly<Record<string, string>>;
  /** The routing tier of this caller's requests when a request names none. */
  readonly tier?: string;
}

/** The request with the caller's tags and tier folded into its `switchyard` hints (the same object when there is nothing to fold). */
export function withCallerHints<R extends ChatRequest>(request: R, caller: CallerIdentity | undefined): R {
  if (!caller || (!caller.tags && !caller.tier)) return request;
  const hints = request.switchyard;
  const tier = hints?.tier ?? caller.tier;
  const switchyard: SwitchyardRequestOptions = addFields<Record<string, unknown>>({}, hints as Readonly<Record<string, unknown>> | undefined);
  if (caller.tags) switchyard.tags = addFields(addFields<Record<string, string>>({}, hints?.tags), caller.tags);
  if (tier !== undefined) switchyard.tier = tier;
  const folded = withField(request, 'switchyard', switchyard) as R;
  // The client's own request (an ingress dialect's) stays with the unified one it was decoded into.
  const origin = requestOriginOf(request);
  if (origin) setRequestOrigin(folded, origin);
  return folded;
}
