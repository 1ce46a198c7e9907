/**
 * The key check on the request path: which caller a presented key belongs to. Config-declared
 * keys are compared all at once (constant time over the list); virtual keys are found by the
 * id in them and checked against their stored hash (and, during a rotation's grace period, the
 * previous one). Malformed keys, unknown ids, wrong secrets and revoked keys all take the same
 * steps and get the same answer; only a key whose secret matched learns that it expired. A
 * declared key that matched is answered without the store's steps.
 */
import { TENANT_ERRORS, type Authentication } from '@switchyard/contracts';
import { timingSafeEqual } from 'node:crypto';
import { SwitchyardError, type CallerIdentity, type Clock } from '@switchyard/core';
import { entryOf, type KeyDirectory, type KeyEntry } from './key-directory.js';
import { identityOf, type KeyPolicy } from './key-record.js';
import { digestOf, hashSecret, parsePresented, STAND_IN_HASH } from './key-secret.js';
import { modelMatcher } from './model-match.js';
import type { DeclaredKey } from './options.js';

/** A config-declared key: its policy and the digest of its secret. */
export interface DeclaredEntry extends KeyEntry {
  digest: Buffer;
  declared: DeclaredKey;
}

export function declaredEntries(keys: readonly DeclaredKey[], now: number): DeclaredEntry[] {
  return keys.map((declared) => {
    const { secret: _secret, ...policy } = declared;
    const entry = entryOf(undefined, now);
    return {
      ...entry,
      identity: identityOf(policy),
      expiresAt: declared.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(declared.expiresAt),
      allows: modelMatcher(declared.models),
      digest: digestOf(declared.secret),
      declared,
    };
  });
}

export class KeyCheck {
  private readonly byId = new Map<string, DeclaredEntry>();

  constructor(
    private readonly directory: KeyDirectory,
    private readonly declared: readonly DeclaredEntry[],
    private readonly clock: Clock,
  ) {
    for (const d of declared) this.byId.set(d.declared.id, d);
  }

  declaredKey(id: string): DeclaredEntry | undefined {
    return this.byId.get(id);
  }

  authenticate(presented: string): Authentication | Promise<Authentication> {
    let declared: DeclaredEntry | undefined;
    if (this.declared.length > 0) {
      const digest = digestOf(presented);
      // Every declared key is compared, whichever matches.
      for (const d of this.declared) if (timingSafeEqual(d.digest, digest)) declared = d;
    }
    // A declared key that matched needs nothing from the store. Answering it sooner tells its holder
    // nothing its answer does not: every key that matched none still takes the same steps.
    if (declared) return this.verdictOf(declared, this.clock.now());
    const { id, secret } = parsePresented(presented);
    const entry = this.directory.key(id);
    if (entry instanceof Promise) return entry.then((e) => this.verdict(e, id, secret));
    return this.verdict(entry, id, secret);
  }

  private verdict(entry: KeyEntry, id: string, secret: string): Authentication {
    const now = this.clock.now();
    const hash = hashSecret(id, secret);
    const current = timingSafeEqual(hash, entry.hash);
    const previous = timingSafeEqual(hash, entry.previous && now < entry.previous.until ? entry.previous.hash : STAND_IN_HASH);
    const record = entry.record;
    return (current || previous) && record && record.revokedAt === undefined ? this.verdictOf(entry, now) : undefined;
  }

  /** The caller of a key whose secret matched, or that it expired. */
  private verdictOf(match: KeyEntry, now: number): Authentication {
    if (now >= match.expiresAt) return expired(match.identity!, match.expiresAt);
    return match.identity;
  }
}

function expired(identity: CallerIdentity, at: number): SwitchyardError {
  return new SwitchyardError('invalid-request', `gateway key ${identity.keyId} (${identity.keyName}) expired at ${new Date(at).toISOString()}; ask its administrator for a new key`, {
    code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_EXPIRED,
    status: 401,
    retryable: false,
  });
}

/** What a key may do, for a virtual key's entry or a declared one. */
export function policyOf(entry: KeyEntry | DeclaredEntry): KeyPolicy | undefined {
  return 'declared' in entry ? entry.declared : entry.record;
}
