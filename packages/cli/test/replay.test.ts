import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../core/test/support/loopback.js';
import { main } from '../src/index.js';
import { capture, configFile, removeTempDirs } from './support.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  await removeTempDirs();
});

const entry = (id: string, model: string) => ({
  id,
  time: '2026-11-30T00:00:00.000Z',
  model,
  stream: false,
  request: { model, messages: [{ role: 'user', content: `question ${id}` }] },
  error: { kind: 'all-candidates-failed', code: 'SWITCHYARD_ERR_ALL_CANDIDATES_FAILED', message: 'everything was down' },
  attempts: [],
});

describe('replay', () => {
  it('re-sends queued requests, writes the answers and keeps what failed again', async () => {
    server = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion('answered later')));
    });
    const config = await configFile(`
endpoints:
  - { name: local, provider: openai-compatible, baseUrl: "${server.url}" }
models:
  chat: [ { endpoint: local, model: m } ]
`);
    const dir = path.dirname(config);
    const queue = path.join(dir, 'failed.jsonl');
    await writeFile(queue, [entry('req-1', 'chat'), entry('req-2', 'gone-model')].map((e) => JSON.stringify(e)).join('\n') + '\n');
    const c = capture({}, dir);
    const code = await main(['replay', '--config', config, '--queue', 'failed.jsonl', '--out', 'answers.jsonl'], c.io);
    expect(code).toBe(1);
    expect(c.out).toContain('ok   req-1 answered by local');
    expect(c.out).toMatch(/fail req-2 SWITCHYARD_ERR_UNKNOWN_MODEL/);
    expect(c.out).toContain('replayed 1, failed 1, still queued 1');
    const answers = (await readFile(path.join(dir, 'answers.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ id: 'req-1', response: { choices: [{ message: { content: 'answered later' } }] } });
    const left = (await readFile(queue, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(left.map((e) => e.id)).toEqual(['req-2']);
    expect(left[0].replay.tries).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('requires --queue', async () => {
    const c = capture();
    expect(await main(['replay'], c.io)).toBe(2);
    expect(c.err).toContain('--queue <file> is required');
  });
});
