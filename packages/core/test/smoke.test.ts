import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline } from '../src/index.js';
import { testProvider } from './support/test-provider.js';
import { completion, sseBody, startLoopback, textChunks, type Loopback } from './support/loopback.js';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('smoke', () => {
  it('fails over from a 503 to the secondary and streams', async () => {
    const a = await startLoopback((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'down' } }));
    });
    const b = await startLoopback((req, res, body) => {
      if (JSON.parse(body).stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sseBody(textChunks(['Hel', 'lo'])));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completion('hi', 'b-model')));
      }
    });
    servers.push(a, b);
    const p = createPipeline({
      endpoints: [
        { name: 'a', provider: 'test', baseUrl: a.url },
        { name: 'b', provider: 'test', baseUrl: b.url },
      ],
      models: { chat: [{ endpoint: 'a', model: 'x' }, { endpoint: 'b', model: 'b-model' }] },
      providers: [testProvider],
    });
    const r = await p.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices[0].message.content).toBe('hi');
    expect(r.switchyard).toMatchObject({ endpoint: 'b', attempts: 2 });
    const s = await p.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    const full = await s.collect();
    expect(full.choices[0].message.content).toBe('Hello');
    expect(full.choices[0].finish_reason).toBe('stop');
    await p.close();
  });
});
