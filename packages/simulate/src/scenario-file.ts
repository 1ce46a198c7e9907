/**
 * Reads scenario files (YAML, or JSON, which is YAML too). The YAML parser is the `yaml`
 * package that @switchyard/core depends on; it is reached through core's own resolution, so
 * this package needs no parser of its own.
 */
import { SIMULATION_ERRORS } from './error-codes.js';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { SwitchyardError } from '@switchyard/core';
import { validateScenario, type Scenario } from './scenario.js';

interface YamlDocument {
  errors: { message: string; linePos?: { line: number; col: number }[] }[];
  toJS(): unknown;
}
interface YamlModule {
  parseDocument(text: string, options?: Record<string, unknown>): YamlDocument;
}

let yamlModule: Promise<YamlModule> | undefined;

function loadYaml(): Promise<YamlModule> {
  return (yamlModule ??= (async () => {
    const specifier = 'yaml';
    try {
      return (await import(specifier)) as YamlModule;
    } catch {
      const fromCore = createRequire(createRequire(import.meta.url).resolve('@switchyard/core/package.json'));
      return fromCore(specifier) as YamlModule;
    }
  })());
}

/** Parses and validates scenario text; `source` names the file in errors. */
export async function parseScenario(text: string, source = 'scenario'): Promise<Scenario> {
  let yaml: YamlModule | undefined;
  try {
    yaml = await loadYaml();
  } catch {
    yaml = undefined;
  }
  let raw: unknown;
  if (yaml) {
    const doc = yaml.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    const e = doc.errors[0];
    if (e) {
      const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
      throw new SwitchyardError('config', `${source}: invalid YAML${where}: ${e.message.split('\n')[0]}`, { code: SIMULATION_ERRORS.SWITCHYARD_ERR_SIMULATION_YAML });
    }
    raw = doc.toJS();
  } else {
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      throw new SwitchyardError('config', `${source}: not valid JSON (and no YAML parser is installed): ${(cause as Error).message}`, { code: SIMULATION_ERRORS.SWITCHYARD_ERR_SIMULATION_YAML });
    }
  }
  try {
    return validateScenario(raw);
  } catch (error) {
    if (error instanceof Error) error.message = `${source}: ${error.message}`;
    throw error;
  }
}

export async function loadScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new SwitchyardError('config', `cannot read scenario file ${file}: ${(cause as Error).message}`, { code: SIMULATION_ERRORS.SWITCHYARD_ERR_SIMULATION_READ, cause });
  }
  return parseScenario(text, file);
}
