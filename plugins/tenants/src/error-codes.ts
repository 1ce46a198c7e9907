/** The error codes @switchyard/plugin-tenants raises: declared with its contract in @switchyard/contracts (TENANT_ERRORS), named here by use. */
import { TENANT_ERRORS } from '@switchyard/contracts';

export const TENANTS_ERRORS = {
  /** A key with a budget asked for a model none of whose deployments has a price. */
  unpriced: TENANT_ERRORS.SWITCHYARD_ERR_UNPRICED_DEPLOYMENT,
  /** A key with a budget asked for a server / hosted tool no deployment has a per-call price for. */
  unpricedTool: TENANT_ERRORS.SWITCHYARD_ERR_UNPRICED_TOOL,
  /** The key store did not answer: an admin write or a key lookup cannot be decided. */
  storeUnavailable: TENANT_ERRORS.SWITCHYARD_ERR_KEY_STORE_UNAVAILABLE,
} as const;
