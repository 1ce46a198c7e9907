/** @switchyard/plugin-tenants' words: the tenants service a host authenticates with, its error codes, its event. */
import { defineErrorCodes, defineService, type CallerIdentity, type CodesOf, type SwitchyardError } from '@switchyard/core';

export const TENANTS_PLUGIN = '@switchyard/plugin-tenants';

/** A gateway key (a tenant's virtual key) and what it may do; the gateway answers them in each dialect. */
export const TENANT_ERRORS = defineErrorCodes(TENANTS_PLUGIN, {
  SWITCHYARD_ERR_KEY_EXPIRED: { kind: 'invalid-request', status: 401 },
  SWITCHYARD_ERR_MODEL_NOT_ALLOWED: { kind: 'invalid-request', status: 403 },
  SWITCHYARD_ERR_KEY_RATE_LIMIT: 'rate-limit',
  SWITCHYARD_ERR_KEY_BUDGET: 'budget-exhausted',
  SWITCHYARD_ERR_KEY_NOT_FOUND: { kind: 'invalid-request', status: 404 },
  SWITCHYARD_ERR_KEY_CONFLICT: { kind: 'invalid-request', status: 409 },
  SWITCHYARD_ERR_KEY_INPUT: 'invalid-request',
  /** A key with a budget asked for a model none of whose deployments has a price. */
  SWITCHYARD_ERR_UNPRICED_DEPLOYMENT: 'invalid-request',
  /** A key with a budget asked for a server / hosted tool no deployment has a per-call price for. */
  SWITCHYARD_ERR_UNPRICED_TOOL: 'invalid-request',
  /** The key store did not answer: an admin write or a key lookup cannot be decided. */
  SWITCHYARD_ERR_KEY_STORE_UNAVAILABLE: { kind: 'overloaded', status: 503 },
  /** A key holds its share of an origin's connections and none freed within the queue time. */
  SWITCHYARD_ERR_CONNECTION_SHARE: { kind: 'budget-exhausted', status: 429 },
});

/** One call of the gateway's admin API (`/switchyard/keys…`, `/switchyard/teams…`), already authenticated with an admin key. */
export interface AdminCall {
  method: string;
  /** The path, e.g. `/switchyard/keys/key_0123456789abcdef/rotate`. */
  path: string;
  query: Readonly<Record<string, string>>;
  /** The JSON body (POST / PATCH), or undefined. */
  body: unknown;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** What `authenticate` answers: the caller, nothing (no such key, in any way), or a coded refusal that may name why (an expired key). */
export type Authentication = CallerIdentity | SwitchyardError | undefined;

/** Gateway keys kept outside the config (tenants' virtual keys): how a host authenticates callers and manages keys. */
export interface TenantsService {
  /**
   * The caller `presented` (the key as the client sent it) belongs to. Unknown ids, wrong secrets,
   * revoked and malformed keys all answer `undefined` by the same path (no timing signal tells
   * them apart); an expired key answers a coded error naming the expiry. Answered at once when
   * the key is cached, else a promise (one store read).
   */
  authenticate(presented: string): Authentication | Promise<Authentication>;
  /** Whether the caller may use a logical model (the model list a caller sees): at once when the key is cached, else a promise (one store read). */
  allowsModel(caller: CallerIdentity, model: string): boolean | Promise<boolean>;
  /** The admin API: create, list, show, usage, update, rotate, revoke keys; team budgets. Throws coded errors. */
  admin(call: AdminCall): Promise<AdminAnswer>;
}

/** Provided by @switchyard/plugin-tenants: the gateway authenticates virtual keys and serves the admin API with it. */
export const TENANTS = defineService<TenantsService>('switchyard.tenants', { providedBy: TENANTS_PLUGIN });

export interface TenantBudgetEvent {
  /** `key` (one gateway key's budget) or `team` (the budget its keys share). */
  scope: 'key' | 'team';
  /** The key id or the team name. */
  id: string;
  /** The key's name, or the team name. */
  name: string;
  period: 'day' | 'month';
  /** The window the spend is for: `2026-05-04` or `2026-05`. */
  window: string;
  /** The highest threshold the spend is at: `soft` (alert), `hard` (refused), `none` (below both: the incident resolves). */
  level: 'soft' | 'hard' | 'none';
  spentUsd: number;
  limitUsd: number;
}

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof TENANT_ERRORS> {}
  interface SwitchyardEvents {
    /** A caller's budget (a gateway key's or its team's) crossed its soft or hard threshold, or fell back below them (`resolved`). */
    'tenant:budget': [TenantBudgetEvent];
  }
}
