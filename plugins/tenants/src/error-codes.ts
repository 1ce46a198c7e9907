/**
 * The error codes @switchyard/plugin-tenants raises beyond its older ones. Until core's
 * `defineErrorCodes` lands they are also listed in core's SPECIFIC_CODES (errors.ts, under a
 * comment naming this package) so the closed `SwitchyardErrorCode` union accepts them.
 */
export const TENANTS_ERRORS = {
  /** A key with a budget asked for a model none of whose deployments has a price. */
  unpriced: 'SWITCHYARD_ERR_UNPRICED_DEPLOYMENT',
  /** A key with a budget asked for a server / hosted tool no deployment has a per-call price for. */
  unpricedTool: 'SWITCHYARD_ERR_UNPRICED_TOOL',
  /** The key store did not answer: an admin write or a key lookup cannot be decided. */
  storeUnavailable: 'SWITCHYARD_ERR_KEY_STORE_UNAVAILABLE',
} as const;
