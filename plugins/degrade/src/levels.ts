/** Turning configured levels into names and candidates, and checking them against the pipeline. */
import { SwitchyardError, type Candidate, type DeploymentConfig, type Pipeline } from '@switchyard/core';
import { candidatesForDeployment } from '@switchyard/core/internal';
import type { DegradeOptions, Level } from './options.js';

export const PLUGIN_NAME = '@switchyard/plugin-degrade';

/** The name a level goes by in `switchyard.degraded`, events and errors. */
export function levelName(level: Level): string {
  switch (level.type) {
    case 'model':
      return `model:${level.model}`;
    case 'endpoint':
      return `endpoint:${level.endpoint}/${level.model}`;
    case 'max-tokens':
      return level.model ? `max-tokens:${level.maxTokens}:${level.model}` : `max-tokens:${level.maxTokens}`;
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

/** The candidates of a logical model, or of `endpoint/model`. */
export function modelCandidates(pipeline: Pipeline, model: string): Candidate[] {
  if (pipeline.models[model]) return [...pipeline.candidatesFor(model)];
  const slash = model.indexOf('/');
  return onEndpoint(pipeline, model.slice(0, slash), model.slice(slash + 1));
}

/** The candidates a model or endpoint level adds. */
export function levelCandidates(pipeline: Pipeline, level: Extract<Level, { type: 'model' | 'endpoint' }>): Candidate[] {
  if (level.type === 'endpoint') return onEndpoint(pipeline, level.endpoint, level.model);
  return modelCandidates(pipeline, level.model);
}

export function configError(path: string, message: string): SwitchyardError {
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
      if ((level.type === 'model' || (level.type === 'max-tokens' && level.model)) && !models.includes(level.model!)) {
        const slash = level.model!.indexOf('/');
        if (slash <= 0 || !endpoints.includes(level.model!.slice(0, slash))) {
          throw configError(`${path}[${i}].model`, `"${level.model}" is neither a logical model (${known(models)}) nor endpoint/model on a known endpoint`);
        }
      }
      if (level.type === 'curated' && !options.curated) throw configError(`${path}[${i}]`, 'a curated level needs the curated option (the file of answers)');
      if (level.type === 'canned' && level.queue && !options.queueFile) throw configError(`${path}[${i}].queue`, 'a canned level that queues needs queueFile');
    });
  checkPlan('levels', options.levels);
  for (const [model, plan] of Object.entries(options.models)) {
    if (!models.includes(model)) throw configError(`models.${model}`, `unknown model "${model}" (known: ${known(models)})`);
    checkPlan(`models.${model}`, plan);
  }
  for (const [tier, plan] of Object.entries(options.tiers)) checkPlan(`tiers.${tier}`, plan);
  const names = new Set<string>();
  options.slo.forEach((slo, i) => {
    const at = `slo[${i}]`;
    if (names.has(slo.name)) throw configError(`${at}.name`, `duplicate objective name "${slo.name}"`);
    names.add(slo.name);
    if (slo.model !== undefined && !models.includes(slo.model)) throw configError(`${at}.model`, `unknown model "${slo.model}" (known: ${known(models)})`);
    const deployments = Object.values(pipeline.models).flatMap((list) => list.map((d) => `${d.endpoint}/${d.model}`));
    if (slo.deployment !== undefined && !deployments.includes(slo.deployment)) throw configError(`${at}.deployment`, `unknown deployment "${slo.deployment}" (known: ${known([...new Set(deployments)])})`);
    slo.then.exclude?.forEach((name, j) => {
      if (!deployments.includes(name) && !endpoints.includes(name)) throw configError(`${at}.then.exclude[${j}]`, `"${name}" is neither a deployment nor an endpoint`);
    });
    if (slo.then.degrade) checkPlan(`${at}.then.degrade`, slo.then.degrade);
  });
}
