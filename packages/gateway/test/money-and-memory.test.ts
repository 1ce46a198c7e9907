/**
 * Issue 34: money and memory hold against hostile tenants and hostile vendors. Each row of the
 * issue's table, tried as it was found: through the real gateway, tenants on the real Redis
 * (.ci/redis.sh, port 6390, a prefix of the test's own), the official OpenAI SDK as the
 * client, loopback vendors that misbehave as described. Every test here failed before its fix.
 */
import http from 'node:http';
import net from 'node:net';
import { EventEmitter, once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@switchyard/core';
import { createUndiciTransport } from '@switchyard/core/config';
import { cache } from '@switchyard/plugin-cache';
import { quota } from '@switchyard/plugin-quota';
import { getTenants } from '@switchyard/plugin-tenants';
import { hedge } from '@switchyard/plugin-hedge';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { createRedisStore } from '@switchyard/store-redis';
import { describeWithRedis } from '../../../plugins/store-redis/test/support/redis.js';
import { redisStoresPerTest } from './support/redis-stores.js';
import { answers, GATEWAY_KEY, pipelineFor, sseBody, startGateway, stopAll, textChunks, vendor, type Handler } from './support/harness.js';
import { VENDOR_KEY } from './support/harness.js';
import { ADMIN_KEY, PRICE, refusedWith, stallableRelay, tenantGateway } from './support/hostile-tenants.js';
import { HEAP_SLACK, heapGrowth, settledHeap } from './support/heap-watch.js';

// Every row is a load: after it, heapUsed after a forced GC is back within 10 MiB of its baseline.
const stores = redisStoresPerTest({ heapReturns: true });

/** A vendor like OpenAI's: the usage chunk only when `stream_options.include_usage` asks for it. */
const honoursIncludeUsage: Handler = (_req, res, body) => {
  const asked = JSON.parse(body);
  if (!asked.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'primary-model', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } }));
    return;
  }
  const chunks = textChunks(['ok']);
  if (asked.stream_options?.include_usage === true) chunks.push({ id: 'c1', model: 'm', choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(sseBody(chunks));
};

/** A vendor that takes the request and never answers. */
const holds: Handler = () => new Promise<void>(() => undefined);

/** `holds`, telling `arrived(marker)` once a request whose body holds `marker` has wholly arrived. */
function holdsAndTells(): { handler: Handler; arrived(marker: string): Promise<void> } {
  const arrivals = new EventEmitter();
  const bodies: string[] = [];
  return {
    handler: (req, res, body) => {
      bodies.push(body);
      arrivals.emit('request');
      return holds(req, res, body);
    },
    async arrived(marker) {
      while (!bodies.some((b) => b.includes(marker))) await once(arrivals, 'request');
    },
  };
}

/** Long enough for any condition a row waits on, on a machine loaded many times over (a condition met returns at once). */
const LOADED = { timeout: 50_000, interval: 50 };

describeWithRedis('issue 34: hostile tenants cannot spend past their budgets', () => {
  it('row 1: a stream with include_usage:false is still billed at the vendor\'s count; the client gets no usage chunk it did not ask for', async () => {
    stores.usePrefix('i34-row1');
    const upstream = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, upstream);
    const k = await rig.key({ name: 'streamer', budget: { day: { limitUsd: 0.05 } } });
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const stream = await k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, stream: true, stream_options: { include_usage: false } });
      for await (const chunk of stream) seen.push(chunk);
    }
    // Asked upstream whatever the client said.
    expect(upstream.requests.map((r) => JSON.parse(r.body).stream_options)).toEqual(Array(3).fill({ include_usage: true }));
    // Stripped again on the way back: no chunk carries usage.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((c) => (c as { usage?: unknown }).usage)).toEqual([]);
    // 3 × (4 + 1 tokens) at $1000 a million: the vendor's count, not 0.
    expect(await rig.spentToday(k.id)).toBeCloseTo(0.015, 9);
    // A client that asked for usage still gets the vendor's chunk.
    const asked = await k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, stream: true, stream_options: { include_usage: true } });
    const usage: unknown[] = [];
    for await (const chunk of asked) if (chunk.usage) usage.push(chunk.usage);
    expect(usage).toEqual([{ prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 }]);
  });

  it('row 2: n choices are reserved n times: n=20 with max_tokens 1000 ($20 at most) does not fit a $5 budget, 5 at once', async () => {
    stores.usePrefix('i34-row2');
    const upstream = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, upstream);
    const k = await rig.key({ name: 'many-choices', budget: { day: { limitUsd: 5 } } });
    // $1000 a million: one choice of 1000 tokens may cost $1, twenty $20.
    const refused = await Promise.all(Array.from({ length: 5 }, () => refusedWith(k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1000, n: 20 }))));
    for (const r of refused) expect(r).toMatchObject({ status: 429, code: 'budget_exhausted' });
    // (A refusal that raced another may name that one's reservation, rolled back since.)
    expect(refused.some((r) => r.message.includes('this request may cost up to $20.01'))).toBe(true);
    expect(upstream.requests).toHaveLength(0);
    expect(await rig.spentToday(k.id)).toBe(0);
    // One choice fits.
    expect((await k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1000 })).choices).toHaveLength(1);
  });

  it('row 3: every input the vendor counts is reserved: tool-call arguments, tool schemas, images', async () => {
    stores.usePrefix('i34-row3');
    const upstream = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, upstream);
    // $0.5 a day at $1000 a million: 500 tokens in all.
    const k = await rig.key({ name: 'stuffer', budget: { day: { limitUsd: 0.5 } } });
    const big = 'lorem ipsum dolor sit amet '.repeat(200); // 5,400 bytes: at most 2,700 tokens
    const attacks: Record<string, unknown>[] = [
      // The prompt as an assistant turn's tool-call arguments, answered by a tool result.
      { messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: JSON.stringify({ text: big }) } }] }, { role: 'tool', tool_call_id: 'c1', content: 'ok' }, { role: 'user', content: 'go' }] },
      // The prompt as a tool's schema.
      { messages: [{ role: 'user', content: 'go' }], tools: [{ type: 'function', function: { name: 'f', description: big, parameters: { type: 'object', properties: {} } } }] },
      // Images by their size rule (2,500 tokens each by default), not by their text.
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'what is it?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }] },
    ];
    for (const attack of attacks) {
      const r = await refusedWith(k.client.chat.completions.create({ model: 'chat', max_tokens: 10, ...attack } as never));
      expect(r).toMatchObject({ status: 429, code: 'budget_exhausted' });
    }
    expect(upstream.requests).toHaveLength(0);
    // An ordinary prompt fits.
    expect((await k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 })).choices).toHaveLength(1);
  });

  it('row 5: key B never gets key A\'s cached answer (0 vendor calls, $0); keys of one team share when the cache says share: team', async () => {
    stores.usePrefix('i34-row5');
    const upstream = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, upstream, { plugins: [cache({ store: 'redis' })] });
    const question = { model: 'chat', messages: [{ role: 'user' as const, content: 'what is the secret plan?' }], max_tokens: 5 };
    const a = await rig.key({ name: 'a', team: 'red' });
    const b = await rig.key({ name: 'b', team: 'blue' });
    await a.client.chat.completions.create(question);
    await a.client.chat.completions.create(question);
    // A's second answer is A's own cache hit.
    expect(upstream.requests).toHaveLength(1);
    await b.client.chat.completions.create(question);
    // B asked the vendor and paid for it.
    expect(upstream.requests).toHaveLength(2);
    expect(await rig.spentToday(b.id)).toBeCloseTo(0.005, 9);

    const shared = await tenantGateway(stores, upstream, { plugins: [cache({ store: 'redis', storePrefix: 'team-cache', share: 'team' })] });
    const red1 = await shared.key({ name: 'red-1', team: 'red' });
    const red2 = await shared.key({ name: 'red-2', team: 'red' });
    const blue = await shared.key({ name: 'blue-1', team: 'blue' });
    await red1.client.chat.completions.create(question);
    await red2.client.chat.completions.create(question);
    expect(upstream.requests).toHaveLength(3);
    await blue.client.chat.completions.create(question);
    expect(upstream.requests).toHaveLength(4);
  });

  it('row 4: a request the client abandons after the vendor got it is billed as an estimate, to the key and in the ledger', { timeout: 60_000 }, async () => {
    stores.usePrefix('i34-row4');
    const { handler, arrived } = holdsAndTells();
    const upstream = await vendor(handler);
    const rig = await tenantGateway(stores, upstream);
    const k = await rig.key({ name: 'leaver', budget: { day: { limitUsd: 1 } } });
    const ledgerLine = async () => (await (await fetch(`${rig.h.origin}/switchyard/usage?groupBy=gatewayKey`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json()).groups[k.id];
    for (let i = 1; i <= 3; i++) {
      const leave = new AbortController();
      const essay = `write a long essay, #${i}`;
      const call = k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: essay }], max_tokens: 500 }, { signal: leave.signal }).then(
        () => 'answered',
        (error: Error) => (leave.signal.aborted ? 'left' : `refused: ${error.message}`),
      );
      // The client leaves once the vendor has this whole request, however long that took (a call that ends first says why).
      await Promise.race([arrived(essay), call.then((outcome) => Promise.reject(new Error(`call #${i} ended before the vendor had it: ${outcome}`)))]);
      leave.abort();
      expect(await call).toBe('left');
      // The next request starts once this one's attempt has ended and been billed (its reservation and connection released):
      // started earlier, it could be refused for the held reservation of a request the client has already left.
      await expect.poll(async () => (await ledgerLine())?.estimated.attempts, LOADED).toBe(i);
    }
    expect(upstream.requests).toHaveLength(3);
    await expect.poll(async () => Math.abs((await ledgerLine()).costUsd - (await rig.spentToday(k.id))), LOADED).toBeLessThan(1e-9);
    expect(await rig.spentToday(k.id)).toBeGreaterThan(0);
  });

  it('row 6: tags another team\'s key sends are reported but never spend a tag budget; the team\'s own key keeps working', async () => {
    stores.usePrefix('i34-row6');
    const upstream = await vendor(honoursIncludeUsage);
    // Two answers ($0.005 each) use up the search project's $0.01 a day.
    const rig = await tenantGateway(stores, upstream, { quota: quota({ ledger: {}, budgets: [{ tag: 'project=search', spendPerDay: 0.01 }] }) });
    const search = await rig.key({ name: 'search-app', team: 'search', tags: { project: 'search' } });
    const other = await rig.key({ name: 'other-app', team: 'ads' });
    const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 5 };
    for (let i = 0; i < 3; i++) expect((await other.client.chat.completions.create({ ...ask, switchyard: { tags: { project: 'search' } } } as never)) as object).toHaveProperty('choices');
    await search.client.chat.completions.create(ask);
    await search.client.chat.completions.create(ask);
    expect(await refusedWith(search.client.chat.completions.create(ask))).toMatchObject({ status: 429, code: 'budget_exhausted' });
    // Reported under the tag all the same.
    const byTag = await (await fetch(`${rig.h.origin}/switchyard/usage?groupBy=tag`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
    expect(byTag.groups['project=search'].requests).toBe(5);
  });

  it('row 7: web searches through /v1/messages are priced per call (reserved by max_uses, billed from server_tool_use); an unpriced server tool is a coded 400 for a budgeted key', async () => {
    stores.usePrefix('i34-row7');
    // Anthropic, answering after 40 searches: 10 + 5 tokens and server_tool_use.web_search_requests.
    const claude = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'found it' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 40 } } }));
    });
    // $1 a million tokens: the tokens cost $0.000015, the 40 searches $0.40 at the default $10 per 1,000.
    const rig = await tenantGateway(stores, claude, {
      extra: { endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'claude', model: 'claude-x', price: { input: 1, output: 1 } }] }, providers: [anthropicProvider] },
    });
    const k = await rig.key({ name: 'searcher', budget: { day: { limitUsd: 1 } } });
    const messages = (tools: unknown[]) => fetch(`${rig.h.origin}/v1/messages`, { method: 'POST', headers: { 'x-api-key': k.secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'chat', max_tokens: 100, messages: [{ role: 'user', content: 'search the web' }], tools }) });
    const searched = await messages([{ type: 'web_search_20250305', name: 'web_search', max_uses: 50 }]);
    expect(searched.status).toBe(200);
    expect(await rig.spentToday(k.id)).toBeCloseTo(0.400015, 9);
    // Each call reserves 50 searches at most ($0.50): the second fits beside $0.40 spent of $1, the third not.
    expect((await messages([{ type: 'web_search_20250305', name: 'web_search', max_uses: 50 }])).status).toBe(200);
    const third = await messages([{ type: 'web_search_20250305', name: 'web_search', max_uses: 50 }]);
    expect(third.status).toBe(429);
    // A server tool nobody priced is refused before the call, never reserved at $0.
    const unknown = await messages([{ type: 'code_execution_20250522', name: 'code_execution' }]);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.message).toContain('per-call price for the server tool "code_execution"');
    expect(claude.requests).toHaveLength(2);
  });

  it('row 7 (OpenAI hosted tools): web_search, file_search and code_interpreter calls on /v1/responses are billed per call from the answer\'s output items', async () => {
    stores.usePrefix('i34-row7-openai');
    // 10 + 5 tokens ($0.015 at PRICE), 3 web searches, 1 file search, 2 Code Interpreter calls in one container.
    const output = [
      ...[1, 2, 3].map((i) => ({ type: 'web_search_call', id: `ws_${i}`, status: 'completed', action: { type: 'search', query: 'q' } })),
      { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['q'], results: null },
      ...[1, 2].map((i) => ({ type: 'code_interpreter_call', id: `ci_${i}`, status: 'completed', code: '1+1', container_id: 'cntr_1', outputs: null })),
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] },
    ];
    const openai = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'primary-model', output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } }));
    });
    const rig = await tenantGateway(stores, openai);
    const k = await rig.key({ name: 'researcher', budget: { day: { limitUsd: 1 } } });
    const tools = [{ type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'code_interpreter', container: { type: 'auto' } }];
    const answered = await k.client.responses.create({ model: 'chat', input: 'research this', tools, max_tool_calls: 5, max_output_tokens: 100 } as never);
    expect((answered as { output_text?: string }).output_text).toBe('done');
    expect(await rig.spentToday(k.id)).toBeCloseTo(0.015 + 3 * 0.01 + 0.0025 + 0.03, 9);
    // A hosted tool without a known fee (image generation bills image tokens at another model's rate) is refused for a budgeted key.
    const refused = await refusedWith(k.client.responses.create({ model: 'chat', input: 'draw', tools: [{ type: 'image_generation' }] } as never));
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('"image_generation"') });
    expect(openai.requests).toHaveLength(1);
  });

  it('row 7 (OpenAI web_search_preview): the searches that ran are billed at the entry of the variant offered, the one reserved ($25 / 1,000, $10 on a reasoning model), streamed or not', async () => {
    stores.usePrefix('i34-row7-preview');
    // Four searches and 10 + 5 tokens ($0.015 at PRICE). Both variants answer with `web_search_call` items.
    const output = [
      ...[1, 2, 3, 4].map((i) => ({ type: 'web_search_call', id: `ws_${i}`, status: 'completed', action: { type: 'search', query: 'q' } })),
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] },
    ];
    const openai = await vendor((_req, res, body) => {
      const asked = JSON.parse(body);
      const response = { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: asked.model, output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } };
      if (!asked.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(response));
        return;
      }
      const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(ev('response.created', { sequence_number: 0, response: { ...response, status: 'in_progress', output: [], usage: null } }) + ev('response.output_text.delta', { sequence_number: 1, item_id: 'msg_1', output_index: 4, content_index: 0, delta: 'done' }) + ev('response.completed', { sequence_number: 2, response }));
    });
    const rig = await tenantGateway(stores, openai, {
      extra: { models: { chat: [{ endpoint: 'primary', model: 'primary-model', price: PRICE }], reasoner: [{ endpoint: 'primary', model: 'gpt-5-2025-08-07', price: PRICE }] } },
    });
    const ask = async (model: string, type: string, stream = false) => {
      const k = await rig.key({ name: `${model}-${type}-${stream}`, budget: { day: { limitUsd: 1 } } });
      const body = { model, input: 'research this', tools: [{ type }], max_tool_calls: 5, max_output_tokens: 20, stream };
      if (stream) for await (const _ of (await k.client.responses.create(body as never)) as unknown as AsyncIterable<unknown>);
      else expect(((await k.client.responses.create(body as never)) as { output_text?: string }).output_text).toBe('done');
      return rig.spentToday(k.id);
    };
    expect(await ask('chat', 'web_search_preview')).toBeCloseTo(0.015 + 4 * 0.025, 9);
    expect(await ask('chat', 'web_search_preview', true)).toBeCloseTo(0.015 + 4 * 0.025, 9);
    expect(await ask('chat', 'web_search_preview_2025_03_11')).toBeCloseTo(0.015 + 4 * 0.025, 9);
    expect(await ask('chat', 'web_search')).toBeCloseTo(0.015 + 4 * 0.01, 9);
    expect(await ask('chat', 'web_search', true)).toBeCloseTo(0.015 + 4 * 0.01, 9);
    expect(await ask('reasoner', 'web_search_preview')).toBeCloseTo(0.015 + 4 * 0.01, 9);
    // The reservation prices the offered variant by the same entries: 10 preview calls ($0.25) do not fit $0.2 on a
    // non-reasoning model; on a reasoning model ($0.10) they do.
    const tight = await rig.key({ name: 'tight', budget: { day: { limitUsd: 0.2 } } });
    const tenCalls = (model: string) => tight.client.responses.create({ model, input: 'x', tools: [{ type: 'web_search_preview' }], max_tool_calls: 10, max_output_tokens: 5 } as never);
    expect(await refusedWith(tenCalls('chat'))).toMatchObject({ status: 429, code: 'budget_exhausted' });
    expect(((await tenCalls('reasoner')) as { output_text?: string }).output_text).toBe('done');
    expect(openai.requests).toHaveLength(7);
  });

  it('row 8: a hedged request bills its losing attempt as an estimate', async () => {
    stores.usePrefix('i34-row8');
    const slow = await vendor(holds);
    const fast = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, slow, {
      plugins: [hedge({ tiers: { interactive: { hedge: { delayMs: 50 } } } })],
      extra: {
        endpoints: [{ name: 'slow', provider: 'openai', baseUrl: slow.url, apiKey: VENDOR_KEY }, { name: 'fast', provider: 'openai', baseUrl: fast.url, apiKey: VENDOR_KEY }],
        models: { chat: [{ endpoint: 'slow', model: 'slow-model', price: PRICE }, { endpoint: 'fast', model: 'fast-model', price: PRICE }] },
      },
    });
    const k = await rig.key({ name: 'batch-key', tier: 'batch', budget: { day: { limitUsd: 1 } } });
    const answer = await k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50, switchyard: { tier: 'interactive' } } as never);
    expect((answer as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe('ok');
    expect(slow.requests).toHaveLength(1);
    // The winner's $0.005 at the vendor's count, and the loser's estimate on top.
    await expect.poll(() => rig.spentToday(k.id), LOADED).toBeGreaterThan(0.005);
    const ledger = await (await fetch(`${rig.h.origin}/switchyard/usage?groupBy=deployment`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
    expect(ledger.groups['slow/slow-model'].estimated.attempts).toBe(1);
    expect(ledger.groups['fast/fast-model'].billed.costUsd).toBeCloseTo(0.005, 9);
  });

  it('row 9: an attempt whose body never fully reached the vendor (it stopped reading), then timed out, is never billed', async () => {
    stores.usePrefix('i34-row9');
    // A vendor that accepts connections and reads nothing: a 16 MiB body never leaves the socket buffers.
    const held = new Set<net.Socket>();
    const deaf = net.createServer((socket) => {
      held.add(socket);
      socket.pause();
    });
    await new Promise<void>((resolve) => deaf.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(deaf.address() as net.AddressInfo).port}/v1`;
      const rig = await tenantGateway(stores, { url } as never, { server: { maxBodyBytes: 32 * 1024 * 1024 } });
      const waiter = await rig.key({ name: 'waiter' });
      const r = await refusedWith(waiter.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(16 * 1024 * 1024) }], max_tokens: 5, switchyard: { timeouts: { attemptMs: 300 } } } as never));
      expect(r.status).toBeGreaterThanOrEqual(500);
      const ledger = await (await fetch(`${rig.h.origin}/switchyard/usage?groupBy=gatewayKey`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
      expect(ledger.groups[waiter.id]).toMatchObject({ failures: 1, costUsd: 0, estimated: { attempts: 0 } });
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => deaf.close(resolve));
    }
  });

  it('row 9: one key holds at most half of an origin\'s connections; over it, a coded 429 after queueMs, never billed; another key is answered meanwhile', async () => {
    stores.usePrefix('i34-row9-share');
    // A vendor that starts every "hold" stream and keeps it open until the test lets it end.
    const open: http.ServerResponse[] = [];
    const upstream = await vendor((_req, res, body) => {
      if (!body.includes('hold')) return honoursIncludeUsage(_req, res, body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody(textChunks(['first'])).split('data: [DONE]')[0]);
      open.push(res);
      return new Promise<void>((resolve) => res.on('close', resolve));
    });
    // Four connections to the origin: a key may hold two.
    const transport = createUndiciTransport({ connections: 4 });
    const rig = await tenantGateway(stores, upstream, { tenants: { connectionShare: { queueMs: 400 } }, extra: { transport } });
    try {
      const a = await rig.key({ name: 'streamer' });
      const b = await rig.key({ name: 'bystander' });
      const hold = () => a.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hold' }], max_tokens: 5, stream: true });
      const held = [await hold(), await hold()];
      for (const stream of held) expect((await stream[Symbol.asyncIterator]().next()).done).toBe(false);
      // Two more from the same key: each waits its queueMs for a connection of its own, then a coded 429.
      const refused = await Promise.all([refusedWith(hold()), refusedWith(hold())]);
      for (const r of refused) expect(r).toMatchObject({ status: 429, code: 'connection_share_exceeded' });
      expect(refused[0].message).toMatch(/at most 2 of 4 \(50 %\)/);
      // The other key is answered while the first holds its share.
      const answered = await b.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
      expect(answered.choices[0].message.content).toBe('ok');
      expect(upstream.requests.length).toBe(3);
      const ledger = await (await fetch(`${rig.h.origin}/switchyard/usage?groupBy=gatewayKey`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
      expect(ledger.groups[a.id] ?? { estimated: { attempts: 0 }, costUsd: 0 }).toMatchObject({ estimated: { attempts: 0 }, costUsd: 0 });
      // A request that queues gets the connection one of the key's own streams gives back.
      const queued = a.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
      open.shift()!.end('data: [DONE]\n\n');
      expect((await queued).choices[0].message.content).toBe('ok');
    } finally {
      for (const res of open) res.destroy();
      await transport.close?.();
    }
  });

  it('row 10: a conversation expanded from previous_response_id is bounded in bytes: past it a coded 400, nothing sent upstream', { timeout: 60_000 }, async () => {
    stores.usePrefix('i34-row10');
    const upstream = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, upstream, { server: { responseStore: { maxBytesPerKey: 16 * 1024 * 1024, maxBytes: 64 * 1024 * 1024, maxConversationBytes: 1024 * 1024 } } as never });
    const k = await rig.key({ name: 'talker' });
    const turn = 'lorem ipsum '.repeat(25_000); // 300 KB a turn
    let previous: string | undefined;
    for (let i = 0; i < 4; i++) previous = (await k.client.responses.create({ model: 'chat', input: turn, store: true, ...(previous ? { previous_response_id: previous } : {}) })).id;
    const sentBefore = upstream.requests.length;
    const tiny = await Promise.all(Array.from({ length: 5 }, () => refusedWith(k.client.responses.create({ model: 'chat', input: 'and?', previous_response_id: previous! }))));
    for (const r of tiny) {
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/the limit is 1048576 \(server\.responseStore\.maxConversationBytes\)/);
    }
    expect(upstream.requests.length).toBe(sentBefore);
  });

  it('row 13: count_tokens for a model outside the key\'s list is a 403 even when the body arrives after the key\'s cache period', async () => {
    stores.usePrefix('i34-row13');
    const upstream = await vendor(honoursIncludeUsage);
    const clock = new VirtualClock(Date.UTC(2026, 11, 5, 12));
    const rig = await tenantGateway(stores, upstream, {
      tenants: { cacheTtlMs: 1_000 },
      extra: { clock, models: { chat: [{ endpoint: 'primary', model: 'primary-model', price: PRICE }], secret: [{ endpoint: 'primary', model: 'secret-model', price: PRICE }] } },
    });
    const k = await rig.key({ name: 'narrow', models: ['chat'] });
    const body = JSON.stringify({ model: 'secret', messages: [{ role: 'user', content: 'how many tokens?' }] });
    const countSlowly = (pause: () => Promise<void> | void) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(`${rig.h.origin}/v1/messages/count_tokens`, { method: 'POST', headers: { 'x-api-key': k.secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
        req.flushHeaders();
        void (async () => {
          await pause();
          req.end(body.slice(10));
        })();
      });
    // Told when the gateway has checked the key (before it reads the body).
    const service = getTenants(rig.h.gateway.pipeline!)!;
    const authenticate = service.authenticate.bind(service);
    let checked: (() => void) | undefined;
    service.authenticate = (presented) => {
      const answer = authenticate(presented);
      checked?.();
      return answer;
    };
    // Fast: the key is in the cache, fresh.
    expect((await countSlowly(() => undefined)).status).toBe(403);
    // Slow: the rest of the body comes after the cached copy's period.
    const slow = await countSlowly(async () => {
      await new Promise<void>((resolve) => (checked = resolve));
      await clock.advance(5_000);
    });
    expect(slow.status).toBe(403);
    expect(JSON.parse(slow.text).error).toMatchObject({ type: 'permission_error' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('row 14: revoking a key during a Redis stall is a 503, never a 404; retried once Redis answers, the key stops working', { timeout: 60_000 }, async () => {
    const prefix = stores.usePrefix('i34-row14');
    const relay = await stallableRelay({ host: '127.0.0.1', port: Number(new URL(process.env.SWITCHYARD_REDIS_URL ?? 'redis://127.0.0.1:6390').port) });
    const store = createRedisStore({ url: relay.url, prefix, commandTimeoutMs: 200, recheckMs: 100 });
    try {
      await store.ready();
      const upstream = await vendor(honoursIncludeUsage);
      const rig = await tenantGateway(stores, upstream, { extra: { store } });
      const k = await rig.key({ name: 'to-revoke' });
      expect((await k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })).choices).toHaveLength(1);
      relay.stall();
      const during = await rig.admin('POST', `/switchyard/keys/${k.id}/revoke`, {});
      expect(during.status).toBe(503);
      expect(during.json.error).toMatchObject({ message: expect.stringContaining('unavailable') });
      relay.resume();
      await expect.poll(async () => (await rig.admin('POST', `/switchyard/keys/${k.id}/revoke`, {})).status, LOADED).toBe(200);
      expect((await refusedWith(k.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }))).status).toBe(401);
    } finally {
      await store.close().catch(() => undefined);
      await relay.close();
    }
  });

  it('row 15: a usage query with a date past what a Date holds is a coded 400, not a 500', async () => {
    stores.usePrefix('i34-row15');
    const upstream = await vendor(honoursIncludeUsage);
    const rig = await tenantGateway(stores, upstream);
    for (const since of ['99999999999999999', '-99999999999999999']) {
      const res = await fetch(`${rig.h.origin}/switchyard/usage?since=${since}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_usage_query', message: expect.stringContaining('since must be a date') });
    }
  });
});

/** Bytes the vendor sends in one answer (CI: 16 MiB against a 1 MiB limit, not gigabytes). */
const HUGE = 16 * 1024 * 1024;
const LIMIT = 1024 * 1024;

/** A vendor answering 200 with a `HUGE` body: one JSON answer, or one SSE event, written with backpressure. */
const hugeAnswer: Handler = async (_req, res, body) => {
  const stream = JSON.parse(body).stream === true;
  res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  const head = stream ? 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"' : '{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"';
  res.write(head);
  const block = 'x'.repeat(64 * 1024);
  for (let sent = 0; sent < HUGE && !res.destroyed; sent += block.length) {
    if (!res.write(block)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  if (!res.destroyed) res.end(stream ? '"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n' : '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}');
};

describe('issue 34 row 11: stored Responses are capped in bytes per key and in all', () => {
  afterEach(stopAll);

  it('store: true past the key\'s cap is a coded 429 before any vendor call; heapUsed after GC stays within 10 MiB of its baseline', { timeout: 60_000 }, async () => {
    const upstream = await vendor(answers(['ok']));
    const pipeline = pipelineFor({ vendors: { v: upstream } });
    const h = await startGateway(pipeline, { server: { responseStore: { maxBytesPerKey: 2.5 * LIMIT, maxBytes: 8 * LIMIT, maxConversationBytes: LIMIT } } as never });
    await h.client.responses.create({ model: 'chat', input: 'warm up', store: true });
    const baseline = await settledHeap();
    const input = 'x'.repeat(LIMIT);
    const results: (string | number)[] = [];
    for (let i = 0; i < 20; i++) results.push(await h.client.responses.create({ model: 'chat', input, store: true }).then(() => 'stored', (e: { status: number; message: string }) => (e.message.includes('server.responseStore.maxBytesPerKey') ? e.status : e.message)));
    expect(results.slice(0, 2)).toEqual(['stored', 'stored']);
    expect(results.slice(2)).toEqual(Array(18).fill(429));
    // The refused ones never reached the vendor (the warm-up and two stored).
    expect(upstream.requests).toHaveLength(3);
    // 2 MiB stored, and kept.
    expect(await heapGrowth('row 11', baseline)).toBeLessThan(HEAP_SLACK);
    // store: false still answers.
    expect((await h.client.responses.create({ model: 'chat', input, store: false })).output_text).toBe('ok');
  });
});

describe('issue 34 row 12: a vendor\'s answer is read only up to a limit', () => {
  afterEach(stopAll);

  it('a 16 MiB answer or SSE event against a 1 MiB limit fails over with a coded error; heapUsed after GC returns within 10 MiB', { timeout: 60_000 }, async () => {
    const a = await vendor(hugeAnswer);
    const b = await vendor(answers(['from b']));
    const errors: unknown[] = [];
    const pipeline = pipelineFor({ vendors: { a, b }, extra: { responseLimits: { maxBodyBytes: LIMIT, maxEventChars: LIMIT } } });
    pipeline.events.on('attempt:end', (e) => e.error && errors.push(e.error.code));
    const h = await startGateway(pipeline);
    const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
    // Warm up (first-use allocations are not the load's), then the baseline.
    await h.client.chat.completions.create(ask).withResponse();
    const baseline = await settledHeap();
    for (let i = 0; i < 3; i++) {
      const { data, response } = await h.client.chat.completions.create(ask).withResponse();
      expect(data.choices[0].message.content).toBe('from b');
      expect(response.headers.get('x-switchyard-attempts')).toBe('2');
      const stream = await h.client.chat.completions.create({ ...ask, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('from b');
    }
    // The warm-up's attempt too: 7 answers of vendor a, every one refused past the limit.
    expect(errors).toEqual(Array(7).fill('SWITCHYARD_ERR_RESPONSE_TOO_LARGE'));
    expect(await heapGrowth('row 12', baseline)).toBeLessThan(HEAP_SLACK);
  });
});

describe('issue 34 (also measured): a client that reads nothing', () => {
  afterEach(stopAll);

  it('is disconnected after writeTimeoutMs and its upstream stream is aborted; heapUsed after GC returns within 10 MiB', { timeout: 60_000 }, async () => {
    let closed = 0;
    const endless = await vendor(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => closed++);
      const chunk = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'x'.repeat(16 * 1024) }, finish_reason: null }] })}\n\n`;
      while (!res.destroyed) if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    });
    const h = await startGateway(pipelineFor({ vendors: { v: endless } }), { server: { writeTimeoutMs: 500 } });
    const baseline = await settledHeap();
    const port = Number(new URL(h.origin).port);
    const body = JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'talk forever' }], stream: true });
    const sockets = Array.from({ length: 20 }, () => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${GATEWAY_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
      socket.pause(); // reads nothing
      socket.on('error', () => undefined);
      return socket;
    });
    // Every stalled client is dropped and its upstream stream closed.
    await expect.poll(() => closed, { timeout: 30_000, interval: 100 }).toBe(20);
    for (const socket of sockets) socket.destroy();
    expect(await heapGrowth('stalled clients', baseline)).toBeLessThan(HEAP_SLACK);
  });
});

