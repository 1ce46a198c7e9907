/**
 * What an importer builds: a Switchyard config as plain data, and the notes on what it could
 * not translate (printed on stderr by `switchyard import`).
 */
import { FIRST_PARTY_PROVIDERS } from '@switchyard/core/internal';
import { providersOf } from '@switchyard/core/internal';

export interface ImportedEndpoint {
  name: string;
  provider: string;
  baseUrl?: string;
  apiKey?: string;
  apiVersion?: string;
  enabled?: boolean;
  timeouts?: { attemptMs: number };
}

export interface ImportedDeployment {
  endpoint: string;
  model: string;
  priority?: number;
  weight?: number;
  capabilities?: string[];
}

export interface ImportedPlugin {
  use: string;
  options?: Record<string, unknown>;
}

export class Translation {
  readonly endpoints: ImportedEndpoint[] = [];
  readonly models: Record<string, ImportedDeployment[]> = {};
  private readonly plugins = new Map<string, Record<string, unknown>>();
  /** What was not translated, one line each, naming where it was in the source. */
  readonly notes: string[] = [];

  note(where: string, what: string): void {
    this.notes.push(`${where}: ${what}`);
  }

  /** An endpoint under a name no other has (`name`, `name-2`…), made of the characters names allow. */
  addEndpoint(endpoint: ImportedEndpoint): string {
    const base = endpoint.name.replace(/[^A-Za-z0-9._:-]+/g, '-') || 'endpoint';
    let name = base;
    for (let i = 2; this.endpoints.some((e) => e.name === name); i++) name = `${base}-${i}`;
    this.endpoints.push({ ...endpoint, name });
    return name;
  }

  addDeployment(model: string, deployment: ImportedDeployment): void {
    (this.models[model] ??= []).push(deployment);
  }

  /** Options for a plugin, merged into what earlier calls gave it; plugins come out in the order first named. */
  plugin(use: string, options: Record<string, unknown> = {}): void {
    const known = this.plugins.get(use) ?? {};
    this.plugins.set(use, mergeOptions(known, options));
  }

  config(): Record<string, unknown> {
    const plugins = [...this.plugins].map(([use, options]) => (Object.keys(options).length ? { use, options } : use));
    return { endpoints: this.endpoints, models: this.models, ...(plugins.length ? { plugins } : {}) };
  }
}

function mergeOptions(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const before = out[key];
    out[key] = isRecord(before) && isRecord(value) ? mergeOptions(before, value) : value;
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A vendor named without a base URL: its provider id and the variable its key is read from. */
export interface Vendor {
  provider: string;
  keyVariable: string;
}

const VENDORS: Readonly<Record<string, Vendor>> = {
  openai: { provider: 'openai', keyVariable: 'OPENAI_API_KEY' },
  azure: { provider: 'azure', keyVariable: 'AZURE_OPENAI_API_KEY' },
  anthropic: { provider: 'anthropic', keyVariable: 'ANTHROPIC_API_KEY' },
  claude: { provider: 'anthropic', keyVariable: 'ANTHROPIC_API_KEY' },
  gemini: { provider: 'gemini', keyVariable: 'GEMINI_API_KEY' },
  google: { provider: 'gemini', keyVariable: 'GEMINI_API_KEY' },
  deepseek: { provider: 'deepseek', keyVariable: 'DEEPSEEK_API_KEY' },
  dashscope: { provider: 'dashscope', keyVariable: 'DASHSCOPE_API_KEY' },
  qwen: { provider: 'dashscope', keyVariable: 'DASHSCOPE_API_KEY' },
  moonshot: { provider: 'moonshot', keyVariable: 'MOONSHOT_API_KEY' },
  zhipu: { provider: 'zhipu', keyVariable: 'ZHIPU_API_KEY' },
  qianfan: { provider: 'qianfan', keyVariable: 'QIANFAN_API_KEY' },
};

/** The vendor a name (`openai`, `deepseek`, `openai_compatible`…) stands for, if it is one Switchyard knows. */
export function vendorNamed(name: string): Vendor | undefined {
  return VENDORS[name.toLowerCase().replace(/_/g, '-')];
}

/** The vendor a base URL's host belongs to (`api.deepseek.com` → deepseek), if it is one Switchyard knows. */
export function vendorOfUrl(url: string): Vendor | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (host.endsWith('.openai.azure.com')) return VENDORS.azure;
  if (host === 'api.openai.com') return VENDORS.openai;
  if (host === 'api.anthropic.com') return VENDORS.anthropic;
  if (host === 'api.deepseek.com') return VENDORS.deepseek;
  if (host === 'generativelanguage.googleapis.com') return VENDORS.gemini;
  if (host === 'dashscope.aliyuncs.com') return VENDORS.dashscope;
  if (host === 'api.moonshot.cn') return VENDORS.moonshot;
  return undefined;
}

/** The base URL a first-party provider sends to when an endpoint names none (read from the provider itself). */
export async function defaultBaseUrl(provider: string): Promise<string | undefined> {
  const pkg = FIRST_PARTY_PROVIDERS[provider];
  if (!pkg) return undefined;
  const found = providersOf((await import(pkg)) as Record<string, unknown>).find((p) => p.id === provider);
  return found?.defaultBaseUrl;
}

/** A `${VAR}` reference, or the literal kept as written. */
export const variable = (name: string) => `\${${name}}`;

/** An environment variable name made of a label (`claude_backup` → `CLAUDE_BACKUP`). */
export const variableName = (label: string) => label.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'VALUE';

/**
 * A URL as Switchyard's providers want it: an Anthropic base URL ends with `/v1`; an Azure one
 * is the resource root (its deployment, when the URL had one, is returned beside it).
 */
export function fixBaseUrl(provider: string, url: string): { baseUrl: string; deployment?: string; note?: string } {
  if (provider === 'anthropic') {
    const trimmed = url.replace(/\/+$/, '');
    if (trimmed.endsWith('/v1')) return { baseUrl: trimmed };
    return { baseUrl: `${trimmed}/v1`, note: `base URL ${url} got /v1 appended (requests go to {baseUrl}/messages)` };
  }
  if (provider === 'azure') {
    const match = /^(.*?)(?:\/openai)?\/deployments\/([^/?]+)/.exec(url);
    if (match) return { baseUrl: match[1], deployment: decodeURIComponent(match[2]), note: `base URL ${url} became the resource root ${match[1]}; "${decodeURIComponent(match[2])}" is the deployment's model` };
  }
  return { baseUrl: url };
}
