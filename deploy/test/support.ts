/** What the deployment tests share: the repository's paths, the production config, tools. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig, type LoadedConfig } from '@switchyard/core/config';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const repoPath = (file: string) => path.join(ROOT, file);
export const readRepo = (file: string) => readFileSync(repoPath(file), 'utf8');
export const existsInRepo = (file: string) => existsSync(repoPath(file));

/** Where every deployment puts the config (image CMD, compose mount, ConfigMap mount, unit). */
export const CONFIG_PATH = '/etc/switchyard/switchyard.yaml';
export const PRODUCTION_CONFIG = 'deploy/switchyard.yaml';

/** The variables deploy/switchyard.yaml requires, with throwaway values. */
export const PRODUCTION_ENV = {
  SWITCHYARD_API_KEY: 'sk-gateway-deploy-test-0123456789',
  OPENAI_API_KEY: 'sk-openai-deploy-test',
  ANTHROPIC_API_KEY: 'sk-ant-deploy-test',
};

export function productionConfig(env: Record<string, string | undefined> = PRODUCTION_ENV): LoadedConfig {
  return parseConfig(readRepo(PRODUCTION_CONFIG), env, repoPath(PRODUCTION_CONFIG));
}

/** Seconds a stop may take: the drain (server.shutdownGraceMs) plus the 1 s abort that follows it. */
export function drainSeconds(): number {
  return Math.ceil((productionConfig().server?.shutdownGraceMs ?? 30_000) / 1000) + 1;
}

export const readYaml = (file: string) => parse(readRepo(file), { merge: true }) as Record<string, any>;
export const readYamlDocuments = (file: string) => parseAllDocuments(readRepo(file)).map((d) => d.toJS() as Record<string, any>);

/**
 * A system tool the test runs for real: present, or absent locally (the test is skipped), but
 * under CI=true its absence fails (.ci/run installs it through deploy/install-tools.sh).
 */
export function tool(name: string, versionArgs = ['--version']): boolean {
  try {
    execFileSync(name, versionArgs, { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error(`${name} is required under CI=true (deploy/install-tools.sh installs it)`);
    return false;
  }
}
