/** GET /v1/models and /v1/models/{id}: the logical models, in the OpenAI list shape. */
import { SERVICE } from '@switchyard/contracts';
import { getService, type CallerIdentity, type Pipeline } from '@switchyard/core';

export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function modelEntry(id: string, created: number): ModelEntry {
  return { id, object: 'model', created, owned_by: 'switchyard' };
}

/** The logical models a caller may use (a tenant's key may be limited to some). */
export async function visibleModels(pipeline: Pipeline, caller: CallerIdentity | undefined): Promise<string[]> {
  const tenants = caller ? getService(pipeline, SERVICE.tenants) : undefined;
  const names = pipeline.modelNames();
  if (!tenants) return names;
  const allowed = await Promise.all(names.map((name) => tenants.allowsModel(caller!, name)));
  return names.filter((_name, i) => allowed[i]);
}

export async function modelList(pipeline: Pipeline, created: number, caller?: CallerIdentity): Promise<{ object: 'list'; data: ModelEntry[] }> {
  return { object: 'list', data: (await visibleModels(pipeline, caller)).map((id) => modelEntry(id, created)) };
}

/** Logical models with no usable candidate (every deployment disabled or without a provider). */
export function modelsWithoutCandidates(pipeline: Pipeline): string[] {
  return pipeline.modelNames().filter((model) => pipeline.candidatesFor(model).length === 0);
}
