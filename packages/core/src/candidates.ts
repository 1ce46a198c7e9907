/** Builds the default candidate list of each logical model from the endpoint and model config. */
import type { ProviderV1 } from './provider.js';
import type { AttemptTimeouts, Candidate, DeploymentConfig, EndpointConfig, ModelsConfig } from './types.js';

export const DEFAULT_TIMEOUTS: AttemptTimeouts = Object.freeze({
  headersMs: 10_000,
  firstTokenMs: 10_000,
  idleMs: 30_000,
  attemptMs: 60_000,
  firstByteMs: 30_000,
});

export const DEFAULT_DEADLINE_MS = 120_000;

/** The keys of an endpoint; empty entries (an unset `${VAR:-}`) are dropped. */
export function endpointKeys(endpoint: EndpointConfig): (string | undefined)[] {
  const keys = [...(endpoint.apiKeys ?? []), ...(endpoint.apiKey !== undefined ? [endpoint.apiKey] : [])].filter((k) => typeof k === 'string' && k.length > 0);
  return keys.length > 0 ? keys : [undefined];
}

export function keyLabel(endpoint: EndpointConfig, index: number): string {
  return endpoint.keyIds?.[index] ?? `${endpoint.name}#${index}`;
}

export function buildCandidates(
  models: ModelsConfig,
  endpoints: readonly EndpointConfig[],
  providers: ReadonlyMap<string, ProviderV1>,
): Map<string, Candidate[]> {
  const byName = new Map(endpoints.map((e) => [e.name, e]));
  const out = new Map<string, Candidate[]>();
  for (const [logical, deployments] of Object.entries(models)) {
    // Without a priority, list order decides: a deployment's default priority is its position.
    const ordered = deployments
      .map((d, index) => ({ d, priority: d.priority ?? index, index }))
      .sort((a, b) => a.priority - b.priority || a.index - b.index);
    const list: Candidate[] = [];
    for (const { d: deployment, priority } of ordered) {
      const endpoint = byName.get(deployment.endpoint);
      if (!endpoint || endpoint.enabled === false) continue;
      list.push(...candidatesForDeployment(endpoint, { ...deployment, priority }, providers.get(endpoint.provider)));
    }
    out.set(logical, list);
  }
  return out;
}

export function candidatesForDeployment(endpoint: EndpointConfig, deployment: DeploymentConfig, provider?: ProviderV1): Candidate[] {
  const keys = endpointKeys(endpoint);
  const deploymentId = `${endpoint.name}/${deployment.model}`;
  const timeouts: AttemptTimeouts = { ...DEFAULT_TIMEOUTS, ...endpoint.timeouts, ...deployment.timeouts };
  const capabilities = new Set<string>(deployment.capabilities ?? provider?.defaultCapabilities ?? []);
  return keys.map((apiKey, keyIndex) => ({
    id: keys.length > 1 ? `${deploymentId}#${keyIndex}` : deploymentId,
    deploymentId,
    endpoint,
    deployment,
    provider: endpoint.provider,
    model: deployment.model,
    keyIndex,
    keyId: keyLabel(endpoint, keyIndex),
    apiKey,
    priority: deployment.priority ?? 0,
    weight: deployment.weight ?? 1,
    capabilities,
    timeouts,
  }));
}
