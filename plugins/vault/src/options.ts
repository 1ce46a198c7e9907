import { z } from 'zod';
import { httpUrlSchema } from '@switchyard/core/internal';

export const vaultOptionsSchema = z
  .object({
    /** Vault's address (VAULT_ADDR), e.g. https://vault.example.com:8200. */
    address: httpUrlSchema,
    /** A token with read access to the secrets (`${VAULT_TOKEN}`, or `${file:/run/secrets/vault-token}`). */
    token: z.string().min(1),
    /** Vault Enterprise namespace (`X-Vault-Namespace`). */
    namespace: z.string().min(1).optional(),
    /** The KV v2 mount; without it a reference's first path segment is the mount. */
    mount: z.string().min(1).optional(),
    /** How often `watch` checks the unpinned secrets for a new version. */
    pollMs: z.number().int().positive().default(60_000),
    /** Renew the token (`renew-self`) this often; off when unset. */
    renewTokenMs: z.number().int().positive().optional(),
    /** Per request to Vault. */
    timeoutMs: z.number().int().positive().default(5_000),
  })
  .strict();

export type VaultOptions = z.output<typeof vaultOptionsSchema>;
export type VaultOptionsInput = z.input<typeof vaultOptionsSchema>;
