/** GET /v1/models and /v1/models/{id}: the logical models, in the OpenAI list shape. */
import type { Pipeline } from '@switchyard/core';

export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function modelEntry(id: string, created: number): ModelEntry {
  return { id, object: 'model', created, owned_by: 'switchyard' };
}

export function modelList(pipeline: Pipeline, created: number): { object: 'list'; data: ModelEntry[] } {
  return { object: 'list', data: pipeline.modelNames().map((id) => modelEntry(id, created)) };
}

/** Logical models with no usable candidate (every deployment disabled or without a provider). */
export function modelsWithoutCandidates(pipeline: Pipeline): string[] {
  return pipeline.modelNames().filter((model) => pipeline.candidatesFor(model).length === 0);
}
