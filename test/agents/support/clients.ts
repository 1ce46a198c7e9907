/**
 * The agent clients of the conformance suite, pinned in test/agents/<folder>/package.json and
 * installed by .ci/install-agents.sh into a cache folder outside the workspace: how to find each,
 * and how to run one headless turn of a session against the gateway (telemetry, update checks and
 * every other phone-home off; a temporary HOME per session; loopback only).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Api } from './scripted-vendor.js';

export const AGENTS_DIR = process.env.SWITCHYARD_AGENTS_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchyard', 'agents');

/** Every model name a client may ask for (main model and helpers): all served by the suite's deployments. */
export const CLIENT_MODELS = ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-haiku-4-5-20251001', 'claude-opus-4-5', 'gpt-6.2-sol', 'gpt-5-codex', 'gpt-5.1-codex', 'gpt-5', 'gpt-5-mini', 'gpt-4.1'];

export interface Session {
  /** Gateway origin (no /v1). */
  origin: string;
  gatewayKey: string;
  /** Working folder holding notes.txt. */
  cwd: string;
  /** The session's temporary HOME (kept across turns so the second turn resumes the first). */
  home: string;
  /** Proxy variables routing every non-loopback request to the dial guard. */
  guardEnv: NodeJS.ProcessEnv;
  /** Node-level loopback guard log, for clients that run on Node. */
  dialLog: string;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AgentClient {
  /** Row name in the README table. */
  name: string;
  /** The pinned package whose version the table shows (and others of its folder it runs with). */
  pkg: { folder: string; name: string; with?: string[] };
  /** The API the client speaks to the gateway (its default). */
  api: Api;
  installed(): boolean;
  turn(session: Session, prompt: string, turn: 1 | 2): Promise<Run>;
}

const nodeModules = (folder: string) => join(AGENTS_DIR, folder, 'node_modules');

/** The version test/agents/<folder>/package.json pins for `name`. */
export function pinnedDependency(folder: string, name: string): string {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../${folder}/package.json`, import.meta.url)), 'utf8')).dependencies[name];
}

/** `name version` of the client's package and the packages it runs with, as the README table shows them. */
export function pinnedVersion(client: AgentClient): string {
  return [client.pkg.name, ...(client.pkg.with ?? [])].map((name) => `${name} ${pinnedDependency(client.pkg.folder, name)}`).join(', ');
}

const NODE_GUARD = fileURLToPath(new URL('../../../packages/gateway/test/support/loopback-guard.mjs', import.meta.url));

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 150_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH, LANG: 'C.UTF-8', NO_COLOR: '1', TERM: 'dumb', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    // A client waiting on a refused dial hangs: kill it, and the assertions say what was missing.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const SESSION_ID = '5d6f1f0e-6a8e-4c1b-9a51-7c1e2f3a4b5c';

export const claudeCode: AgentClient = {
  name: 'Claude Code',
  pkg: { folder: 'claude-code', name: '@anthropic-ai/claude-code' },
  api: 'anthropic',
  installed: () => existsSync(join(nodeModules('claude-code'), '@anthropic-ai', 'claude-code-linux-x64', 'claude')),
  turn(s, prompt, turn) {
    const bin = join(nodeModules('claude-code'), '@anthropic-ai', 'claude-code-linux-x64', 'claude');
    const session = turn === 1 ? ['--session-id', SESSION_ID] : ['--resume', SESSION_ID];
    return run(bin, ['-p', prompt, '--allowedTools', 'Read', ...session], s.cwd, {
      ...s.guardEnv,
      HOME: s.home,
      ANTHROPIC_BASE_URL: s.origin,
      ANTHROPIC_API_KEY: s.gatewayKey,
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    });
  },
};

export const codex: AgentClient = {
  name: 'Codex CLI',
  pkg: { folder: 'codex', name: '@openai/codex' },
  api: 'responses',
  installed: () => existsSync(join(nodeModules('codex'), '@openai', 'codex-linux-x64', 'vendor')),
  turn(s, prompt, turn) {
    const codexHome = join(s.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        `model_provider = "switchyard"`,
        `check_for_update_on_startup = false`,
        `[analytics]`,
        `enabled = false`,
        `[features]`,
        // The plugin marketplace and connected apps sync from GitHub and chatgpt.com at start.
        `plugins = false`,
        `remote_plugin = false`,
        `apps = false`,
        `[feedback]`,
        `enabled = false`,
        `[otel]`,
        `exporter = "none"`,
        `[model_providers.switchyard]`,
        `name = "Switchyard"`,
        `base_url = "${s.origin}/v1"`,
        `env_key = "SWITCHYARD_API_KEY"`,
        `wire_api = "responses"`,
        `request_max_retries = 0`,
        `stream_max_retries = 1`,
        '',
      ].join('\n'),
    );
    const bin = join(nodeModules('codex'), '@openai', 'codex', 'bin', 'codex.js');
    const args = turn === 1 ? ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt] : ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'resume', '--last', prompt];
    return run(process.execPath, [bin, ...args], s.cwd, { ...s.guardEnv, HOME: s.home, CODEX_HOME: codexHome, SWITCHYARD_API_KEY: s.gatewayKey, RUST_LOG: 'warn' });
  },
};

export const opencode: AgentClient = {
  name: 'opencode',
  pkg: { folder: 'opencode', name: 'opencode-linux-x64' },
  api: 'anthropic',
  installed: () => existsSync(join(nodeModules('opencode'), 'opencode-linux-x64', 'bin', 'opencode')),
  turn(s, prompt, turn) {
    // The configuration comes from the environment: a configuration folder would get its plugin
    // types installed from the npm registry at start.
    const config = JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      model: 'anthropic/claude-sonnet-4-5',
      provider: { anthropic: { options: { baseURL: `${s.origin}/v1`, apiKey: s.gatewayKey } } },
    });
    // opencode installs @opencode-ai/plugin into its configuration folder at start unless the
    // folder's manifest and lockfile already list it: the pinned copy is linked there instead.
    const configDir = join(s.home, '.config', 'opencode');
    if (!existsSync(join(configDir, 'node_modules'))) {
      mkdirSync(configDir, { recursive: true });
      const manifest = { dependencies: { '@opencode-ai/plugin': pinnedDependency('opencode', '@opencode-ai/plugin') } };
      writeFileSync(join(configDir, 'package.json'), JSON.stringify(manifest));
      writeFileSync(join(configDir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': manifest } }));
      symlinkSync(nodeModules('opencode'), join(configDir, 'node_modules'));
    }
    const bin = join(nodeModules('opencode'), 'opencode-linux-x64', 'bin', 'opencode');
    return run(bin, ['run', ...(turn === 2 ? ['--continue'] : []), prompt], s.cwd, {
      ...s.guardEnv,
      HOME: s.home,
      XDG_CONFIG_HOME: join(s.home, '.config'),
      XDG_DATA_HOME: join(s.home, '.local', 'share'),
      XDG_CACHE_HOME: join(s.home, '.cache'),
      XDG_STATE_HOME: join(s.home, '.local', 'state'),
      OPENCODE_CONFIG_CONTENT: config,
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_PURE: '1',
    });
  },
};

/** An SDK driver (test/agents/drivers/<file>) run from the pinned SDK folder, one process per turn. */
function sdkClient(name: string, pkgName: string, api: Api, driver: string, extra: NodeJS.ProcessEnv, alongside: string[] = []): AgentClient {
  return {
    name,
    pkg: { folder: 'sdks', name: pkgName, with: alongside },
    api,
    installed: () => existsSync(join(nodeModules('sdks'), pkgName, 'package.json')),
    turn(s, prompt) {
      const source = readFileSync(fileURLToPath(new URL(`../drivers/${driver}`, import.meta.url)), 'utf8');
      return run(process.execPath, ['--input-type=module', '-e', source], join(AGENTS_DIR, 'sdks'), {
        HOME: s.home,
        NODE_OPTIONS: `--import ${NODE_GUARD}`,
        SWITCHYARD_DIAL_LOG: s.dialLog,
        GATEWAY_URL: s.origin,
        GATEWAY_KEY: s.gatewayKey,
        PROMPT: prompt,
        SESSION_FILE: join(s.home, 'session.json'),
        NOTES_DIR: s.cwd,
        OPENAI_AGENTS_DISABLE_TRACING: '1',
        ...extra,
      });
    },
  };
}

export const openaiAgents = sdkClient('OpenAI Agents SDK', '@openai/agents', 'responses', 'openai-agents.mjs', { MODEL: 'gpt-5-codex' });
export const aiSdkOpenAI = sdkClient('AI SDK, OpenAI (Responses)', '@ai-sdk/openai', 'responses', 'ai-sdk.mjs', { PROVIDER: 'openai', MODEL: 'gpt-5-codex' }, ['ai']);
export const aiSdkAnthropic = sdkClient('AI SDK, Anthropic', '@ai-sdk/anthropic', 'anthropic', 'ai-sdk.mjs', { PROVIDER: 'anthropic', MODEL: 'claude-sonnet-4-5' }, ['ai']);

export const CLIENTS: AgentClient[] = [claudeCode, codex, opencode, openaiAgents, aiSdkOpenAI, aiSdkAnthropic];
