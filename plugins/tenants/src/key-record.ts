/**
 * A virtual key as the store holds it: one JSON document per key (written whole, by
 * compare-and-set, so a key is never half-written), with its secret only as a hash. What the
 * admin API shows of it (`KeyView`) never includes the hash.
 */
import type { CallerIdentity } from '@switchyard/core';
import type { Budget, KeyFields, Limits } from './options.js';

export const RECORD_VERSION = 1;

export interface KeyRecord {
  v: typeof RECORD_VERSION;
  id: string;
  /** base64url SHA-256 of the key id and secret (key-secret.ts). */
  hash: string;
  name: string;
  team?: string;
  owner?: string;
  createdAt: string;
  updatedAt: string;
  expiresAt?: string;
  revokedAt?: string;
  rotatedAt?: string;
  /** After a rotation with a grace period: the previous secret's hash and until when it still works. */
  previous?: { hash: string; until: string };
  models?: string[];
  limits?: Limits;
  budget?: Budget;
  tags?: Record<string, string>;
  tier?: string;
  metadata?: Record<string, unknown>;
}

export type KeyStatus = 'active' | 'expired' | 'revoked';

export interface KeyView {
  id: string;
  /** `config` keys are declared in the config and read-only here. */
  source: 'api' | 'config';
  status: KeyStatus;
  name: string;
  team: string | null;
  owner: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  rotatedAt: string | null;
  /** Until when the previous secret still works after a rotation. */
  previousSecretUntil: string | null;
  models: string[] | null;
  limits: Limits;
  budget: Budget;
  tags: Record<string, string>;
  tier: string | null;
  metadata: Record<string, unknown>;
}

/** What a key is, for policy: fields a record and a config-declared key share. */
export type KeyPolicy = Pick<KeyRecord, 'id' | 'name' | 'team' | 'expiresAt' | 'revokedAt' | 'models' | 'limits' | 'budget' | 'tags' | 'tier'>;

export function statusOf(key: Pick<KeyRecord, 'expiresAt' | 'revokedAt'>, now: number): KeyStatus {
  if (key.revokedAt !== undefined) return 'revoked';
  if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

export function viewOf(key: Omit<KeyRecord, 'v' | 'hash' | 'createdAt' | 'updatedAt'> & { createdAt?: string; updatedAt?: string }, source: KeyView['source'], now: number): KeyView {
  return {
    id: key.id,
    source,
    status: statusOf(key, now),
    name: key.name,
    team: key.team ?? null,
    owner: key.owner ?? null,
    createdAt: key.createdAt ?? null,
    updatedAt: key.updatedAt ?? null,
    expiresAt: key.expiresAt ?? null,
    revokedAt: key.revokedAt ?? null,
    rotatedAt: key.rotatedAt ?? null,
    // A revoked key has no secret that works, the old one included.
    previousSecretUntil: key.revokedAt === undefined && key.previous && Date.parse(key.previous.until) > now ? key.previous.until : null,
    models: key.models ?? null,
    limits: key.limits ?? {},
    budget: key.budget ?? {},
    tags: key.tags ?? {},
    tier: key.tier ?? null,
    metadata: key.metadata ?? {},
  };
}

/** The identity a request of this key carries through the pipeline (frozen: shared by every request). */
export function identityOf(key: KeyPolicy): CallerIdentity {
  const identity: { -readonly [K in keyof CallerIdentity]: CallerIdentity[K] } = { keyId: key.id, keyName: key.name };
  if (key.team !== undefined) identity.team = key.team;
  if (key.tags && Object.keys(key.tags).length > 0) identity.tags = Object.freeze({ ...key.tags });
  if (key.tier !== undefined) identity.tier = key.tier;
  return Object.freeze(identity);
}

/** The record's fields from a key spec (undefined fields left out, so JSON compares stay stable). */
export function fieldsOf(spec: KeyFields): Omit<KeyRecord, 'v' | 'id' | 'hash' | 'createdAt' | 'updatedAt'> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(spec)) if (value !== undefined) out[field] = value;
  return out as Omit<KeyRecord, 'v' | 'id' | 'hash' | 'createdAt' | 'updatedAt'>;
}
