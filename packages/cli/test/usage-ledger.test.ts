/**
 * The ledger through the real gateway: billed usage, estimated billing of attempts that
 * reached the vendor and then failed (timeout after headers, cut stream, hedge loser, client
 * abort after the first token), GET /switchyard/usage and `switchyard usage --log` agreeing.
 */
import path from 'node:path';
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { completion, sseBody, startLoopback, textChunks, type Loopback } from '../../core/test/support/loopback.js';
import { main, startServer } from '../src/index.js';
import { capture, cleanUp, configFile, keepServer, keepVendors } from './support.js';

afterEach(cleanUp);

const env = { GW_KEY: 'gw-ledger-test' };
/** Every prompt is 40 characters: an estimate of 10 input tokens. */
const prompt = (word: string) => word.padEnd(40, '.');
const PRICE = '{ input: 1000, output: 2000 }'; // USD per 1M tokens: $0.001 in, $0.002 out

function primaryVendor(): http.RequestListener & ((req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  return ((_req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
    const request = JSON.parse(body);
    const word = String(request.messages[0].content).replace(/\.+$/, '');
    if (word === 'ok') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(completion('fine'))); // usage 3 in, 2 out
    }
    if (word === 'fail') {
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
    }
    if (word === 'stall' || word === 'hedge') {
      // Headers now, then silence: a first-token timeout (stream) or a hedge that wins (non-stream).
      res.writeHead(200, { 'content-type': word === 'stall' ? 'text/event-stream' : 'application/json' });
      res.flushHeaders();
      return;
    }
    if (word === 'cut') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody(textChunks(['Hello', ' world!'], false), false)); // 12 characters, then the socket dies
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (word === 'abort') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody(textChunks(['first chunk.'], false), false)); // 12 characters; the client leaves after it
      return;
    }
    res.writeHead(400);
    res.end();
  }) as never;
}

function backupVendor(_req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const usage = { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 };
  if (JSON.parse(body).stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(sseBody([...textChunks(['from', ' backup']), { id: 'c1', model: 'b', choices: [], usage }]));
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...(completion('from backup') as object), usage }));
  }
}

describe('usage ledger', () => {
  it('bills vendor usage, estimates attempts that reached the vendor, and the route and the CLI agree', { timeout: 60_000 }, async () => {
    const primary = await startLoopback(primaryVendor());
    const backup = await startLoopback(backupVendor);
    keepVendors(primary, backup);
    const file = await configFile('placeholder');
    const log = path.join(path.dirname(file), 'logs', 'usage.jsonl');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      file,
      `
server: { host: 127.0.0.1, port: 8787, apiKeys: ["\${GW_KEY}"] }
endpoints:
  - { name: primary, provider: openai, baseUrl: "${primary.url}", apiKey: sk-primary-0123456789, timeouts: { firstTokenMs: 400, headersMs: 5000 } }
  - { name: backup, provider: openai, baseUrl: "${backup.url}", apiKey: sk-backup-0123456789 }
models:
  chat:
    - { endpoint: primary, model: p-model, price: ${PRICE} }
    - { endpoint: backup, model: b-model, price: ${PRICE} }
plugins:
  - use: "@switchyard/plugin-hedge"
    options: { tiers: { hedged: { hedge: { delayMs: 200 } } } }
  - use: "@switchyard/plugin-quota"
    options: { ledger: { log: "${log}" } }
`,
    );
    const out = capture(env);
    const server = await startServer({ file, io: out.io, overrides: { port: 0 }, watch: false });
    keepServer(server);
    const client = new OpenAI({ baseURL: server.address.url, apiKey: env.GW_KEY, maxRetries: 0 });
    const origin = server.address.url.replace(/\/v1$/, '');
    const ask = (word: string, extra: Record<string, unknown> = {}) => ({ model: 'chat', messages: [{ role: 'user' as const, content: prompt(word) }], ...extra });

    // 1. billed: the vendor's usage
    expect((await client.chat.completions.create(ask('ok'))).choices[0].message.content).toBe('fine');
    // 2. a 500: not billed, served by the backup (billed)
    expect((await client.chat.completions.create(ask('fail'))).choices[0].message.content).toBe('from backup');
    // 3. timeout after headers (no first token): estimated 10 in; the backup streams the answer (billed)
    let text = '';
    for await (const chunk of await client.chat.completions.create({ ...ask('stall'), stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('from backup');
    // 4. a cut stream after "Hello world!": estimated 10 in + 3 out
    const cut = await client.chat.completions.create({ ...ask('cut'), stream: true });
    await expect((async () => {
      for await (const _ of cut) void _;
    })()).rejects.toThrow();
    // 5. a hedge loser (headers, then silence): estimated 10 in; the backup wins (billed)
    expect((await client.chat.completions.create(ask('hedge', { switchyard: { tier: 'hedged' } }) as never) as OpenAI.ChatCompletion).choices[0].message.content).toBe('from backup');
    // 6. the client leaves after the first token: estimated 10 in + 3 out
    const abandoned = await client.chat.completions.create({ ...ask('abort'), stream: true });
    for await (const chunk of abandoned) {
      if (chunk.choices[0]?.delta?.content) break;
    }

    const usage = async (query: string) => {
      const res = await fetch(`${origin}/switchyard/usage${query}`, { headers: { authorization: `Bearer ${env.GW_KEY}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    await expect.poll(async () => (await usage('')).body.total?.estimated.attempts, { timeout: 10_000, interval: 50 }).toBe(4);

    const byDeployment = (await usage('?groupBy=deployment')).body;
    expect(byDeployment.total).toEqual({
      requests: 4,
      failures: 3,
      billed: { inputTokens: 3 + 4 * 3, outputTokens: 2 + 2 * 3, cachedTokens: 0, costUsd: 0.031 },
      estimated: { attempts: 4, inputTokens: 40, outputTokens: 6, costUsd: 0.052 },
      costUsd: 0.083,
    });
    expect(byDeployment.groups['primary/p-model']).toMatchObject({ requests: 1, failures: 3, billed: { costUsd: 0.007 }, estimated: { attempts: 4, costUsd: 0.052 } });
    expect(byDeployment.groups['backup/b-model']).toMatchObject({ requests: 3, failures: 0, billed: { costUsd: 0.024 }, estimated: { attempts: 0, costUsd: 0 } });

    // The CLI reads the log and prints the same answer, for every grouping.
    for (const groupBy of ['deployment', 'key', 'model', 'day']) {
      const fromRoute = (await usage(`?groupBy=${groupBy}`)).body;
      const cli = capture();
      expect(await main(['usage', '--log', log, '--group-by', groupBy, '--json'], cli.io)).toBe(0);
      expect(JSON.parse(cli.out)).toEqual(fromRoute);
    }
    const table = capture();
    expect(await main(['usage', '--log', log], table.io)).toBe(0);
    expect(table.out).toContain('primary/p-model');
    expect(table.out).toMatch(/total\s+4\s+3\s+15\s+8\s+\$0\.031000\s+4\s+46\s+\$0\.052000\s+\$0\.083000/);

    // Bad queries are clear 400s; the route needs a gateway key.
    expect(await usage('?groupBy=planet')).toMatchObject({ status: 400, body: { error: { code: 'invalid_usage_query' } } });
    expect((await usage('?since=yesterday')).body.error.message).toContain('since must be a date');
    expect((await fetch(`${origin}/switchyard/usage`)).status).toBe(401);
    const bad = capture();
    expect(await main(['usage', '--log', log, '--group-by', 'planet'], bad.io)).toBe(2);
    expect(bad.err).toContain('--group-by must be one of');
  });
});
