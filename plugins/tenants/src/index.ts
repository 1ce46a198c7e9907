// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export { TENANT_ERRORS, type AdminAnswer, type AdminCall, type Authentication, type TenantBudgetEvent, type TenantsService } from '@switchyard/contracts';
export { tenants, tenants as default, getTenants, type TenantRequestState } from './tenants-plugin.js';
export { PLUGIN_NAME } from './name.js';
export { tenantsOptionsSchema, keyFieldsSchema, keyUpdateSchema, budgetSchema, limitsSchema, type TenantsOptions, type TenantsOptionsInput, type KeyFields, type KeyUpdate, type Budget, type BudgetWindow, type Limits, type DeclaredKey } from './options.js';
export type { KeyRecord, KeyView, KeyStatus } from './key-record.js';
export { KEY_PREFIX } from './key-secret.js';
export { modelMatcher } from './model-match.js';
