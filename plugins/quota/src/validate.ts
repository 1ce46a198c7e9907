/** Checks that need the pipeline: every endpoint, key and model a budget names must exist. */
import { SwitchyardError, type Pipeline } from '@switchyard/core';
import { endpointKeys, keyLabel } from '@switchyard/core/internal';
import type { Budget } from './options.js';
import { PLUGIN_NAME } from './name.js';

function configError(path: string, message: string): SwitchyardError {
  return new SwitchyardError('config', `${PLUGIN_NAME}: ${path}: ${message}`, { code: 'SWITCHYARD_ERR_CONFIG', path });
}

const list = (names: string[]) => names.map((n) => `"${n}"`).join(', ') || '(none)';

export function checkBudgetsAgainst(pipeline: Pipeline, budgets: readonly Budget[]): void {
  const endpoints = pipeline.endpoints.map((e) => e.name);
  const keys = pipeline.endpoints.flatMap((e) => endpointKeys(e).map((_, i) => keyLabel(e, i)));
  const models = Object.keys(pipeline.models);
  budgets.forEach((b, i) => {
    if (b.endpoint !== undefined && !endpoints.includes(b.endpoint)) throw configError(`budgets[${i}].endpoint`, `unknown endpoint "${b.endpoint}" (known: ${list(endpoints)})`);
    if (b.key !== undefined && !keys.includes(b.key)) throw configError(`budgets[${i}].key`, `unknown key "${b.key}" (known: ${list(keys)})`);
    if (b.model !== undefined && !models.includes(b.model)) throw configError(`budgets[${i}].model`, `unknown model "${b.model}" (known: ${list(models)})`);
  });
}
