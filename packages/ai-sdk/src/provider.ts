/**
 * `switchyard(pipeline)`: an AI SDK provider whose language models are the pipeline's logical
 * models, run in-process (failover, breakers, continuation, budgets) with no gateway between.
 */
import { NoSuchModelError, type LanguageModelV3 } from '@ai-sdk/provider';
import type { LanguageModelV2 } from '@ai-sdk/provider-v2';
import type { Pipeline } from '@switchyard/core';
import { v2, v3, type SpecificationVersion } from './dialects.js';
import { SwitchyardLanguageModel } from './language-model.js';

export interface SwitchyardProviderSettings<V extends SpecificationVersion = 'v3'> {
  /** `'v3'` (default) for ai@6 and ai@7; `'v2'` for ai@5, which runs only LanguageModelV2. */
  specificationVersion?: V;
}

export interface SwitchyardProvider<M> {
  /** The pipeline's logical model `modelId` (a key of its `models`) as an AI SDK model. */
  languageModel(modelId: string): M;
  /** Same as languageModel. */
  chat(modelId: string): M;
  (modelId: string): M;
}

export function switchyard(pipeline: Pipeline, settings?: SwitchyardProviderSettings<'v3'>): SwitchyardProvider<LanguageModelV3>;
export function switchyard(pipeline: Pipeline, settings: SwitchyardProviderSettings<'v2'>): SwitchyardProvider<LanguageModelV2>;
export function switchyard(pipeline: Pipeline, settings: SwitchyardProviderSettings<SpecificationVersion> = {}): SwitchyardProvider<LanguageModelV2 | LanguageModelV3> {
  const version = settings.specificationVersion ?? 'v3';
  const languageModel = (modelId: string) => {
    if (!pipeline.modelNames().includes(modelId)) {
      throw new NoSuchModelError({ modelId, modelType: 'languageModel', message: `the pipeline has no model "${modelId}" (it has: ${pipeline.modelNames().join(', ')})` });
    }
    const model = version === 'v2' ? new SwitchyardLanguageModel('v2', modelId, pipeline, v2) : new SwitchyardLanguageModel('v3', modelId, pipeline, v3);
    return model as unknown as LanguageModelV2 | LanguageModelV3;
  };
  const provider = (modelId: string) => languageModel(modelId);
  provider.languageModel = languageModel;
  provider.chat = languageModel;
  return provider;
}
