/** `switchyard import`: recognises a foreign config's shape and translates it. */
import { parse } from 'yaml';
import { SwitchyardError } from '@switchyard/core';
import { fromFaultTolerantClient, fromModelMapping, fromRobustClient } from './design-configs.js';
import { fromLiteLLM } from './litellm.js';
import { isRecord, Translation } from './translation.js';

export interface Imported {
  /** Which shape the file had. */
  format: string;
  config: Record<string, unknown>;
  /** What could not be translated, one line each. */
  notes: string[];
}

const FORMATS: readonly { name: string; matches: (s: Record<string, unknown>) => boolean; translate: (s: Record<string, unknown>, t: Translation) => Promise<void> }[] = [
  { name: 'litellm', matches: (s) => Array.isArray(s.model_list), translate: fromLiteLLM },
  { name: 'fault-tolerant-ai-client', matches: (s) => isRecord(s.ai_services), translate: fromFaultTolerantClient },
  { name: 'gateway-model-mapping', matches: (s) => isRecord(s.model_mapping), translate: fromModelMapping },
  { name: 'robust-ai-client', matches: (s) => Array.isArray(s.endpoints) && !isRecord(s.models), translate: fromRobustClient },
];

export async function importConfig(text: string, source = 'input'): Promise<Imported> {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new SwitchyardError('config', `${source}: invalid YAML: ${(error as Error).message.split('\n')[0]}`, { code: 'SWITCHYARD_ERR_CONFIG_YAML' });
  }
  const format = isRecord(parsed) ? FORMATS.find((f) => f.matches(parsed as Record<string, unknown>)) : undefined;
  if (!format) {
    throw new SwitchyardError('config', `${source}: not a config import knows: expected LiteLLM's model_list, or a design document's endpoints, ai_services or model_mapping`, { code: 'SWITCHYARD_ERR_CONFIG' });
  }
  const translation = new Translation();
  await format.translate(parsed as Record<string, unknown>, translation);
  if (translation.endpoints.length === 0) throw new SwitchyardError('config', `${source}: nothing to translate: no endpoint or deployment could be made`, { code: 'SWITCHYARD_ERR_CONFIG' });
  return { format: format.name, config: translation.config(), notes: translation.notes };
}
