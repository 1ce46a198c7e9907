/**
 * Who a request comes from. Three kinds of key, never accepted in each other's place:
 *
 * - `server.apiKeys`: the config's gateway keys; a caller `server#<index>` on every route;
 * - virtual keys (tenants), when the pipeline has `@switchyard/plugin-tenants`: model routes only,
 *   authenticated by the plugin's `SERVICE.tenants` (the caller it answers carries the key id, name, team);
 * - `server.adminKeys`: the admin API (`/switchyard/keys`, `/switchyard/teams`) and the operator
 *   routes (`/status`, `/metrics`, `/switchyard/usage`), never a model route.
 *
 * A gateway with no `server.apiKeys` and no tenants plugin is open (loopback only).
 */
import { type TenantsService } from '@switchyard/contracts';
import { isSwitchyardError, type CallerIdentity, type SwitchyardError } from '@switchyard/core';
import { createKeyIndex, type KeyIndex } from './gateway-keys.js';

/** The caller id of a `server.apiKeys` entry: `server#<index>`. */
export const SERVER_KEY_PREFIX = 'server#';

/**
 * Whose data a caller's stored data is (a stored response): a virtual key's own id; undefined
 * for the config's keys, which are all the operator's and see each other's (a rotated key too).
 */
export function ownerOf(caller: CallerIdentity | undefined): string | undefined {
  return caller === undefined || caller.keyId.startsWith(SERVER_KEY_PREFIX) ? undefined : caller.keyId;
}

/** What the gate decided: a caller (or an open gateway's nobody), an admin, or a refusal. */
export type Admission =
  | { kind: 'caller'; caller: CallerIdentity | undefined; virtual: boolean }
  | { kind: 'admin' }
  | { kind: 'refused'; error?: SwitchyardError };

const REFUSED: Admission = { kind: 'refused' };
const OPEN: Admission = { kind: 'caller', caller: undefined, virtual: false };
const ADMIN: Admission = { kind: 'admin' };

export const ADMIN_PATHS = /^\/switchyard\/(keys|teams)(\/|$)/;

export class CallerGate {
  private readonly server: KeyIndex;
  private readonly admin: KeyIndex;
  /** One frozen identity per server key: nothing is made per request. */
  private readonly serverCallers: readonly Admission[];
  readonly hasAdminKeys: boolean;

  constructor(
    private readonly apiKeys: readonly string[],
    adminKeys: readonly string[],
  ) {
    this.server = createKeyIndex(apiKeys);
    this.admin = createKeyIndex(adminKeys);
    this.hasAdminKeys = adminKeys.length > 0;
    this.serverCallers = apiKeys.map((_key, i) => Object.freeze({ kind: 'caller', caller: Object.freeze({ keyId: `${SERVER_KEY_PREFIX}${i}` }), virtual: false }) as Admission);
  }

  /** True when nothing needs a key: no server keys and no virtual keys. */
  open(tenants: TenantsService | undefined): boolean {
    return this.apiKeys.length === 0 && tenants === undefined;
  }

  /** The admin API: admin keys only. */
  admitAdmin(presented: string | undefined): boolean {
    return this.admin(presented) >= 0;
  }

  /** Model and operator routes. `operator`: an admin key is accepted too (and a virtual key is not). */
  admit(presented: string | undefined, tenants: TenantsService | undefined, operator: boolean): Admission | Promise<Admission> {
    if (this.open(tenants)) return OPEN;
    const index = this.server(presented);
    if (index >= 0) return this.serverCallers[index];
    if (operator) return this.admin(presented) >= 0 ? ADMIN : REFUSED;
    if (!tenants || presented === undefined || presented.length === 0) return REFUSED;
    const found = tenants.authenticate(presented);
    return found instanceof Promise ? found.then(admission) : admission(found);
  }
}

function admission(found: CallerIdentity | SwitchyardError | undefined): Admission {
  if (found === undefined) return REFUSED;
  if (isSwitchyardError(found)) return { kind: 'refused', error: found };
  return { kind: 'caller', caller: found, virtual: true };
}
