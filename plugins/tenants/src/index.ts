// Its events and codes are declared in the shared contracts: importing this package types them.
import '@switchyard/contracts';
export { tenants, tenants as default, getTenants, type TenantRequestState } from './tenants-plugin.js';
export { PLUGIN_NAME } from './name.js';
export { tenantsOptionsSchema, keyFieldsSchema, keyUpdateSchema, budgetSchema, limitsSchema, type TenantsOptions, type TenantsOptionsInput, type KeyFields, type KeyUpdate, type Budget, type BudgetWindow, type Limits, type DeclaredKey } from './options.js';
export type { KeyRecord, KeyView, KeyStatus } from './key-record.js';
export { KEY_PREFIX } from './key-secret.js';
export { modelMatcher } from './model-match.js';
