/**
 * Gemini CLI (pinned, test/agents/gemini-cli, installed by .ci/install-agents.sh into a cache
 * folder outside the workspace) completes a tool-using session through the gateway's Gemini
 * dialect: the scripted vendor asks it to read a file with its own `read_file` tool, the CLI
 * runs the tool and sends the result back, the vendor answers with what the file holds. Once
 * to a Gemini vendor (its requests pass through), once to an Anthropic vendor after the Gemini
 * one fails (translated). The CLI runs headless with telemetry, usage statistics and update
 * checks off; every dial that is not loopback is refused and fails the test
 * (support/loopback-guard.mjs). Without the installed CLI the test skips, except under CI=true.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiDialect, geminiProvider } from '@switchyard/provider-gemini';
import { DEFAULT_DIALECTS } from '../src/index.js';
import { GATEWAY_KEY, startGateway, stopAll, vendor, type Handler } from './support/harness.js';

/** The sessions' folders (the CLI's home, the notes it reads): removed after each test. */
const folders: string[] = [];
const folder = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
};
afterEach(async () => {
  await stopAll();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const AGENTS = process.env.SWITCHYARD_AGENTS_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchyard', 'agents');
const CLI = join(AGENTS, 'gemini-cli', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
const GUARD = fileURLToPath(new URL('./support/loopback-guard.mjs', import.meta.url));
const installed = existsSync(CLI);
if (!installed && process.env.CI === 'true') throw new Error(`Gemini CLI is not installed at ${CLI}: .ci/run installs it (bash .ci/install-agents.sh)`);

const MARKER = 'SWITCHYARD-7f3a';
const FINAL = `The notes say: ${MARKER}`;
/** Models Gemini CLI may ask for (its main model and its helpers'): all served by the same deployments. */
const MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash-lite', 'gemini-3-pro-preview', 'gemini-3-flash-preview', 'gemini-2.0-flash'];

interface Seen {
  toolResult?: string;
  calls: number;
}

/** What the vendor says next, from what it was sent (any API): read the file, then answer with it. */
function nextTurn(text: string, seen: Seen, file: string): { call?: { name: string; args: Record<string, unknown> }; text?: string } {
  if (text.includes(MARKER)) {
    seen.toolResult = text;
    return { text: FINAL };
  }
  // Helper requests (next-speaker checks, routing) ask for JSON.
  if (/responseJsonSchema|responseMimeType|"json_schema"|next_speaker/.test(text)) return { text: '{"reasoning":"the answer is complete","next_speaker":"user"}' };
  if (!text.includes('read_file')) return { text: 'ok' };
  // The tool's parameter name as this CLI version declares it.
  const declared = /"read_file"[\s\S]*?"properties":\{"(\w+)"/.exec(text)?.[1] ?? 'absolute_path';
  seen.calls++;
  return { call: { name: 'read_file', args: { [declared]: file } } };
}

function geminiVendor(seen: Seen, file: string): Handler {
  return (req, res, body) => {
    const turn = nextTurn(body, seen, file);
    const part = turn.call ? { functionCall: turn.call } : { text: turn.text };
    const answer = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 }, modelVersion: 'gemini-2.5-flash', responseId: `r${seen.calls}` };
    if ((req.url ?? '').includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    }
  };
}

function anthropicVendor(seen: Seen, file: string): Handler {
  return (_req, res, body) => {
    const turn = nextTurn(body, seen, file);
    const block = turn.call ? { type: 'tool_use', id: `toolu_${seen.calls}`, name: turn.call.name, input: turn.call.args } : { type: 'text', text: turn.text };
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [block], stop_reason: turn.call ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 20, output_tokens: 5 } };
    if (!JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(message));
      return;
    }
    const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const start = turn.call ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta = turn.call ? { type: 'input_json_delta', partial_json: JSON.stringify(turn.call.args) } : { type: 'text_delta', text: turn.text };
    res.end(
      ev('message_start', { message: { ...message, content: [], stop_reason: null } }) +
        ev('content_block_start', { index: 0, content_block: start }) +
        ev('content_block_delta', { index: 0, delta }) +
        ev('content_block_stop', { index: 0 }) +
        ev('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } }) +
        ev('message_stop', {}),
    );
  };
}

const unavailable: Handler = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }));
};

/** Runs one headless session; resolves with its output, the dials it tried and its exit code. */
function runCli(baseUrl: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string; dials: string[] }> {
  const home = folder('sy-gemini-home-');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, security: { auth: { selectedType: 'gemini-api-key' } }, ui: { hideTips: true, hideBanner: true } }),
  );
  const dialLog = join(home, 'dials.log');
  writeFileSync(dialLog, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GEMINI_API_KEY: GATEWAY_KEY,
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_TELEMETRY_ENABLED: 'false',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_COLOR: '1',
    NODE_OPTIONS: `--import ${GUARD}`,
    SWITCHYARD_DIAL_LOG: dialLog,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, '-m', 'gemini-2.5-flash', '-p', 'What do my notes in notes.txt say?'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    // Within 30 s, or it failed (a client waiting on a refused dial hangs here).
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, dials: readFileSync(dialLog, 'utf8').split('\n').filter(Boolean) });
    });
  });
}

/** A folder with the notes the session reads, and the gateway in front of the vendors. */
async function session(vendors: (file: string, seen: Seen) => { gemini: Handler; anthropic?: Handler }) {
  const cwd = folder('sy-gemini-work-');
  const file = join(cwd, 'notes.txt');
  writeFileSync(file, `remember ${MARKER}\n`);
  const seen: Seen = { calls: 0 };
  const upstream = vendors(file, seen);
  const gemini = await vendor(upstream.gemini);
  const anthropic = upstream.anthropic ? await vendor(upstream.anthropic) : undefined;
  const deployments = [{ endpoint: 'gemini', model: 'gemini-2.5-flash' }, ...(anthropic ? [{ endpoint: 'anthropic', model: 'claude-x' }] : [])];
  const pipeline = createPipeline({
    endpoints: [{ name: 'gemini', provider: 'gemini', baseUrl: gemini.url, apiKey: 'AIza-vendor-key-0123456789' }, ...(anthropic ? [{ name: 'anthropic', provider: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant-vendor-0123456789' }] : [])],
    models: Object.fromEntries(MODELS.map((m) => [m, deployments])),
    providers: [geminiProvider, anthropicProvider],
  });
  const { origin } = await startGateway(pipeline, { dialects: [...DEFAULT_DIALECTS, geminiDialect] });
  return { run: () => runCli(origin, cwd), gemini, seen };
}

describe.skipIf(!installed)('Gemini CLI through the gateway', () => {
  it('completes a tool-using session against a Gemini vendor (pass-through)', async () => {
    const s = await session((file, seen) => ({ gemini: geminiVendor(seen, file) }));
    const run = await s.run();
    expect(run.dials).toEqual([]);
    expect(s.seen.calls).toBeGreaterThan(0);
    expect(s.seen.toolResult).toContain(MARKER);
    expect(run.stdout).toContain(FINAL);
    expect(run.code, run.stderr).toBe(0);
    // The CLI's requests reached the Gemini vendor as it sent them, with the vendor's key instead of the gateway's.
    expect(s.gemini.requests.every((r) => r.path.includes(':streamGenerateContent?alt=sse') && r.headers['x-goog-api-key'] === 'AIza-vendor-key-0123456789')).toBe(true);
  }, 45_000);

  it('completes it on an Anthropic vendor after the Gemini one fails (translation)', async () => {
    const s = await session((file, seen) => ({ gemini: unavailable, anthropic: anthropicVendor(seen, file) }));
    const run = await s.run();
    expect(run.dials).toEqual([]);
    expect(s.gemini.requests.length).toBeGreaterThan(0);
    expect(s.seen.calls).toBeGreaterThan(0);
    expect(s.seen.toolResult).toContain(MARKER);
    expect(run.stdout).toContain(FINAL);
    expect(run.code, run.stderr).toBe(0);
  }, 45_000);
});
