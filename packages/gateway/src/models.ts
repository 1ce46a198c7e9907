/** The logical models a caller may see (each dialect lists them in its own shape). */
import { SERVICE } from '@switchyard/contracts';
import { getService, type CallerIdentity, type Pipeline } from '@switchyard/core';

/** The logical models a caller may use (a tenant's key may be limited to some). */
export async function visibleModels(pipeline: Pipeline, caller: CallerIdentity | undefined): Promise<string[]> {
  const tenants = caller ? getService(pipeline, SERVICE.tenants) : undefined;
  const names = pipeline.modelNames();
  if (!tenants) return names;
  const allowed = await Promise.all(names.map((name) => tenants.allowsModel(caller!, name)));
  return names.filter((_name, i) => allowed[i]);
}

/** Logical models with no usable candidate (every deployment disabled or without a provider). */
export function modelsWithoutCandidates(pipeline: Pipeline): string[] {
  return pipeline.modelNames().filter((model) => pipeline.candidatesFor(model).length === 0);
}
