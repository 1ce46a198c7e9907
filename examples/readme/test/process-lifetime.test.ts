/**
 * The README example as a user runs it: a plain `node` process with nothing else holding the
 * event loop open. A pending request's timers (the retry backoff after the primary refuses)
 * must keep it alive; an idle pipeline's background timers must not.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback URL whose port was free a moment ago and now refuses connections. */
async function refusingUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

async function anthropicSaying(text: string): Promise<Loopback> {
  const server = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 4 } }));
  });
  servers.push(server);
  return server;
}

function runScript(file: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', 'tsx', path.join(here, '../src', file)], { cwd: path.join(here, '..'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('a plain node process running the README example', () => {
  it('waits through the retry backoff, prints the fallback answer and exits 0', async () => {
    const fallback = await anthropicSaying('Hello from the fallback');
    const result = await runScript('main.ts', { PRIMARY_URL: await refusingUrl(), FALLBACK_URL: fallback.url });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Hello from the fallback \(from claude after \d+ attempts\)\n$/);
    expect(result.code).toBe(0);
    expect(fallback.requests).toHaveLength(1);
  }, 45_000);

  it('exits on its own when the pipeline is idle, even with health probes scheduled', async () => {
    const result = await runScript('idle.ts', { PRIMARY_URL: await refusingUrl() });
    expect(result.stdout).toBe('idle pipeline created\n');
    expect(result.code).toBe(0);
  }, 45_000);
});
