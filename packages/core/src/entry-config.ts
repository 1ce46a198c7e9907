/**
 * `@switchyard/core/config`: reading a Switchyard config (YAML, env substitution, secrets and
 * secret resolvers, validation), building a pipeline, a transport or a record-keeping store from it.
 */
export { loadConfigFile } from './config-file.js';
export { configError, type PluginEntry, type ServerConfig, type SwitchyardConfig } from './config-schema.js';
export { type Env, type ExternalSecrets, type LoadedConfig, parseConfig, readSecretFile, substituteTree, substituteVariables } from './config.js';
export { errorRuleSchema, RULE_KINDS } from './error-rules.js';
export { parseDuration, parseProtoDuration } from './http-errors.js';
export { createPipelineFromConfig, type FromConfigOptions, type Importer } from './plugin-loader.js';
export { requestLimitsSchema } from './request-limits.js';
export { defineSecretResolver, EXTERNAL_SECRET_RE, isSecretResolverFactory, resolveConfigSecrets, type ResolvedSecrets, type ResolveSecretsOptions, SECRET_RESOLVER_MARKER, type SecretResolver, type SecretResolverContext, type SecretResolverDefinition, type SecretResolverFactory, type SecretValue } from './secret-resolvers.js';
export { switchyardHintsSchema } from './switchyard-hints.js';
export { configDir, resolveCa, transportFromConfig } from './transport-from-config.js';
export { createDispatcher, createUndiciTransport, type UndiciTransportOptions } from './transport.js';
export { readConfigReport, type ConfigReport } from './config.js';
// Layering a durable record store behind the shared one is part of setting a gateway up.
export { RecordKeepingStore, type RecordKeepingOptions } from './record-keeping-store.js';
export { combineProblems } from './config-schema.js';
export { closestName, didYouMean } from './did-you-mean.js';
export { pluginProblems } from './plugin-loader.js';
