/** Turning configured levels into names and candidates, and checking them against the pipeline. */
import { candidatesForDeployment, SwitchyardError, type Candidate, type DeploymentConfig, type Pipeline } from '@switchyard/core';
import type { DegradeOptions, Level } from './options.js';

export const PLUGIN_NAME = '@switchyard/plugin-degrade';

/** The name a level goes by in `switchyard.degraded`, events and errors. */
export function levelName(level: Level): string {
  switch (level.type) {
    case 'model':
      return `model:${level.model}`;
    case 'endpoint':
      return `endpoint:${level.endpoint}/${level.model}`;
    default:
      return level.type;
  }
}

function deploymentOn(pipeline: Pipeline, endpoint: string, model: string): DeploymentConfig {
  for (const deployments of Object.values(pipeline.models)) {
    const found = deployments.find((d) => d.endpoint === endpoint && d.model === model);
    if (found) return found;
  }
  return { endpoint, model };
}

function onEndpoint(pipeline: Pipeline, endpointName: string, model: string): Candidate[] {
  const endpoint = pipeline.endpoints.find((e) => e.name === endpointName);
  if (!endpoint || endpoint.enabled === false) return [];
  return candidatesForDeployment(endpoint, deploymentOn(pipeline, endpointName, model), pipeline.providers.get(endpoint.provider));
}

/** The candidates a model or endpoint level adds. */
export function levelCandidates(pipeline: Pipeline, level: Extract<Level, { type: 'model' | 'endpoint' }>): Candidate[] {
  if (level.type === 'endpoint') return onEndpoint(pipeline, level.endpoint, level.model);
  if (pipeline.models[level.model]) return [...pipeline.candidatesFor(level.model)];
  const slash = level.model.indexOf('/');
  return onEndpoint(pipeline, level.model.slice(0, slash), level.model.slice(slash + 1));
}

function configError(path: string, message: string): SwitchyardError {
  return new SwitchyardError('config', `${PLUGIN_NAME}: ${path}: ${message}`, { code: 'SWITCHYARD_ERR_CONFIG', path });
}

/** Every model, endpoint and plan key a level names must exist in the pipeline. */
export function checkLevelsAgainst(pipeline: Pipeline, options: DegradeOptions): void {
  const endpoints = pipeline.endpoints.map((e) => e.name);
  const models = Object.keys(pipeline.models);
  const known = (names: string[]) => names.map((n) => `"${n}"`).join(', ');
  const checkPlan = (path: string, plan: Level[]) =>
    plan.forEach((level, i) => {
      if (level.type === 'endpoint' && !endpoints.includes(level.endpoint)) {
        throw configError(`${path}[${i}].endpoint`, `unknown endpoint "${level.endpoint}" (known: ${known(endpoints)})`);
      }
      if (level.type === 'model' && !models.includes(level.model)) {
        const slash = level.model.indexOf('/');
        if (slash <= 0 || !endpoints.includes(level.model.slice(0, slash))) {
          throw configError(`${path}[${i}].model`, `"${level.model}" is neither a logical model (${known(models)}) nor endpoint/model on a known endpoint`);
        }
      }
    });
  checkPlan('levels', options.levels);
  for (const [model, plan] of Object.entries(options.models)) {
    if (!models.includes(model)) throw configError(`models.${model}`, `unknown model "${model}" (known: ${known(models)})`);
    checkPlan(`models.${model}`, plan);
  }
  for (const [tier, plan] of Object.entries(options.tiers)) checkPlan(`tiers.${tier}`, plan);
}
