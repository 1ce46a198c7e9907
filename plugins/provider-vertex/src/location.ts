/**
 * Where a Vertex AI endpoint is: `https://{location}-aiplatform.googleapis.com/v1`, or
 * `https://aiplatform.googleapis.com/v1` for the `global` location; and the publisher model
 * resource a request names: `projects/{p}/locations/{l}/publishers/{google|anthropic}/models/{m}`.
 */
import { SwitchyardError, type Candidate, type EndpointConfig } from '@switchyard/core';

export function vertexProject(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return endpoint.project ?? env.GOOGLE_CLOUD_PROJECT ?? env.CLOUDSDK_CORE_PROJECT;
}

export function vertexLocation(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return endpoint.location ?? env.GOOGLE_CLOUD_LOCATION;
}

export function vertexBaseUrl(endpoint: EndpointConfig): string | undefined {
  const location = vertexLocation(endpoint);
  if (!location) return undefined;
  return location === 'global' ? 'https://aiplatform.googleapis.com/v1' : `https://${location}-aiplatform.googleapis.com/v1`;
}

/** Claude on Vertex is `claude-…@date`; every other publisher model here is Google's (Gemini). */
export function isClaude(model: string): boolean {
  return /^claude-/.test(model);
}

export function publisherPath(target: Candidate, publisher: 'google' | 'anthropic', model: string): string {
  const project = vertexProject(target.endpoint);
  const location = vertexLocation(target.endpoint);
  if (!project || !location) throw new SwitchyardError('config', `endpoint ${target.endpoint.name}: vertex needs a project and a location`, { code: 'SWITCHYARD_ERR_CONFIG', provider: 'vertex' });
  if (!/^[A-Za-z0-9._@-]+$/.test(model)) throw new SwitchyardError('config', `vertex: model "${model}" is not a publisher model id`, { code: 'SWITCHYARD_ERR_CONFIG', path: 'model', provider: 'vertex' });
  return `/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}`;
}
