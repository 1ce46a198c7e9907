/**
 * @switchyard/plugin-vault: HashiCorp Vault KV v2 secrets in a Switchyard config.
 *
 *   secrets:
 *     - use: "@switchyard/plugin-vault"
 *       options: { address: "https://vault.example.com:8200", token: "${VAULT_TOKEN}" }
 *   endpoints:
 *     - { name: openai, provider: openai, apiKey: "${vault:secret/switchyard/openai#api_key}" }
 */
import { defineSecretResolver } from '@switchyard/core/config';
import { vaultOptionsSchema, type VaultOptions } from './options.js';
import { VaultKv } from './vault-kv.js';

export const vault = defineSecretResolver<VaultOptions>({
  scheme: 'vault',
  optionsSchema: vaultOptionsSchema,
  create: (options, { clock }) => new VaultKv(options, clock),
});

export default vault;
export { parseReference, VaultKv } from './vault-kv.js';
export { vaultOptionsSchema, type VaultOptions, type VaultOptionsInput } from './options.js';
