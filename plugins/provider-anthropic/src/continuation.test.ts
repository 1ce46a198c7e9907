import { afterEach, describe, expect, it } from 'vitest';
import { type ChatRequest, type StreamPart } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, setRequestOrigin } from '@switchyard/core/wire';
import type http from 'node:http';
import { anthropicRig, sseEvent, type TestRig } from '../test/support.js';

let rig: TestRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const TOOLS = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } }];

/** A Claude Code–like turn: thinking on, a tool round trip signed by deployment `a`, an earlier turn signed by `a` too. */
function clientBody(): Record<string, unknown> {
  return {
    model: 'chat',
    max_tokens: 4096,
    stream: true,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    tools: TOOLS,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'greet', signature: 'sig-a-1' }, { type: 'text', text: 'hi' }] },
      { role: 'user', content: [{ type: 'text', text: 'read notes.txt', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'read it', signature: 'sig-a-2' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'notes.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'remember X' }] },
    ],
  };
}

function messagesRequest(body: Record<string, unknown>): ChatRequest {
  const unified: ChatRequest = {
    model: 'chat',
    reasoning_effort: 'low',
    tools: [{ type: 'function', function: { name: 'Read', parameters: TOOLS[0]!.input_schema } }],
    messages: [{ role: 'user', content: 'read notes.txt' }],
  };
  setRequestOrigin(unified, { format: ANTHROPIC_MESSAGES, body });
  return unified;
}

/** Anthropic's signature check: only signatures this deployment issued; no prefill with thinking on. */
function refusal(body: any, issued: readonly string[]): string | undefined {
  for (const m of body.messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b.type === 'thinking' && !issued.includes(b.signature)) return 'messages.1.content.0: Invalid `signature` in `thinking` block';
  }
  const last = body.messages[body.messages.length - 1];
  if (body.thinking && body.thinking.type !== 'disabled' && last.role === 'assistant') return 'the final assistant message cannot be prefilled when thinking is enabled';
  if (last.role === 'assistant' && typeof last.content[0]?.text === 'string' && /\s$/.test(last.content[0].text)) return 'final assistant content cannot end with trailing whitespace';
  return undefined;
}

function textStream(text: string, cutAfter?: string): { events: string[]; cutAt?: number } {
  const events = [
    sseEvent({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ];
  let cutAt: number | undefined;
  if (cutAfter !== undefined) {
    events.push(sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: cutAfter } }));
    cutAt = events.length;
    text = text.slice(cutAfter.length);
  }
  events.push(sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
  events.push(sseEvent({ type: 'content_block_stop', index: 0 }));
  events.push(sseEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }));
  events.push(sseEvent({ type: 'message_stop' }));
  return { events, cutAt };
}

/** A deployment that issued `issued`, validates as Anthropic does, and answers `text` (cut once after `cutAfter`). */
function deployment(issued: string[], text: string, cutAfter?: string) {
  let cut = cutAfter !== undefined;
  return (_req: http.IncomingMessage, res: http.ServerResponse, raw: string) => {
    const body = JSON.parse(raw);
    const refused = refusal(body, issued);
    if (refused) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refused } }));
      return;
    }
    const last = body.messages[body.messages.length - 1];
    const prefix: string = last.role === 'assistant' ? last.content[0].text : '';
    const { events, cutAt } = textStream(text.slice(prefix.length), cut ? cutAfter : undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (cutAt === undefined) return void res.end(events.join(''));
    cut = false;
    res.write(events.slice(0, cutAt).join(''), () => res.socket?.destroy());
  };
}

async function textOf(request: ChatRequest): Promise<string> {
  const parts: StreamPart[] = [];
  for await (const part of await rig!.pipeline.stream(request)) parts.push(part);
  const error = parts.find((p) => p.type === 'error');
  if (error) throw new Error(JSON.stringify(error));
  return parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
}

const ANSWER = 'The notes say: remember X.';

describe('a cut Anthropic stream continues in the client’s Messages body, valid for the next deployment', () => {
  it('turns thinking off, leaves the cut deployment’s thinking blocks out, keeps tools and cache breakpoints, and the client gets the answer once', async () => {
    rig = await anthropicRig([deployment(['sig-a-1', 'sig-a-2'], ANSWER, 'The notes say: '), deployment([], ANSWER)]);
    const dropped: { candidate: string; features: (string | undefined)[] }[] = [];
    rig.pipeline.events.on('field:dropped', (e) => dropped.push({ candidate: e.candidate.deploymentId, features: e.dropped.map((d) => d.feature) }));
    expect(await textOf(messagesRequest(clientBody()))).toBe(ANSWER);
    expect(rig.servers[1]!.requests).toHaveLength(1);
    // The thinking the continuation went without is disclosed like any drop.
    expect(dropped).toEqual([{ candidate: expect.any(String), features: ['thinking', 'block:thinking'] }]);
    const sent = JSON.parse(rig.servers[1]!.requests[0]!.body);
    expect(sent.thinking).toBeUndefined();
    expect(sent.context_management).toBeUndefined();
    expect(sent.tools).toEqual(TOOLS);
    expect(JSON.stringify(sent.messages)).not.toContain('"thinking"');
    expect(sent.messages[2].content[0].cache_control).toEqual({ type: 'ephemeral' });
    // The partial answer as the last assistant turn, trimmed as Anthropic requires.
    expect(sent.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'The notes say:' }] });
  });

  it('a unified client’s continuation leaves its reasoning effort and signed thinking out as well', async () => {
    rig = await anthropicRig([deployment(['sig-a-2'], ANSWER, 'The notes say: '), deployment([], ANSWER)]);
    const request: ChatRequest = {
      model: 'chat',
      reasoning_effort: 'low',
      messages: [
        { role: 'user', content: 'read notes.txt' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{}' } }], providerMetadata: { anthropic: { thinkingBlocks: [{ type: 'thinking', thinking: 'read it', signature: 'sig-a-2' }] } } },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'remember X' },
      ],
    };
    expect(await textOf(request)).toBe(ANSWER);
    const sent = JSON.parse(rig.servers[1]!.requests[0]!.body);
    expect(sent.thinking).toBeUndefined();
    expect(JSON.stringify(sent.messages)).not.toContain('sig-a-2');
  });
});

describe('a thinking signature another deployment issued is repaired once on the same deployment', () => {
  /** The next turn after a healed cut: the client's history holds thinking signed by `a`, and `b` answers. */
  function nextTurn(): Record<string, unknown> {
    const body = clientBody();
    const messages = body.messages as unknown[];
    messages.push({ role: 'assistant', content: [{ type: 'thinking', thinking: 'answer', signature: 'sig-a-3' }, { type: 'text', text: ANSWER }] }, { role: 'user', content: [{ type: 'text', text: 'Thanks. Say goodbye.' }] });
    return { ...body, stream: false };
  }

  it('strips earlier turns’ thinking and retries the same deployment: no failover, the 400 recorded', async () => {
    let received = 0;
    const b = deployment([], 'Goodbye.');
    rig = await anthropicRig([
      (req, res, raw) => {
        received++;
        const body = JSON.parse(raw);
        const refused = refusal(body, []);
        if (refused) {
          res.writeHead(400, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refused } }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'msg_2', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'Goodbye.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 2 } }));
      },
      b,
    ]);
    const answer = await rig.pipeline.chat(messagesRequest(nextTurn()));
    expect(answer.choices[0]!.message.content).toBe('Goodbye.');
    expect(received).toBe(2);
    expect(rig.servers[1]!.requests).toHaveLength(0);
    const retried = JSON.parse(rig.servers[0]!.requests[1]!.body);
    // Earlier turns without thinking; the thinking setting and the rest of the body as sent.
    expect(JSON.stringify(retried.messages)).not.toContain('"thinking"');
    expect(retried.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(rig.attempts.map((a) => a.outcome)).toEqual(['request-failure', 'success']);
  });

  it('repairs once: a second refusal is the answer, and other 400s are not retried', async () => {
    rig = await anthropicRig([
      (_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } }));
      },
    ]);
    await expect(rig.pipeline.chat(messagesRequest(nextTurn()))).rejects.toMatchObject({ status: 400 });
    expect(rig.servers[0]!.requests).toHaveLength(2);
    await rig.close();
    rig = await anthropicRig([
      (_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } }));
      },
    ]);
    await expect(rig.pipeline.chat(messagesRequest(nextTurn()))).rejects.toMatchObject({ status: 400 });
    expect(rig.servers[0]!.requests).toHaveLength(1);
  });

  it('a tool loop that failed over from another issuer: the refused block is in the current turn, so its retry has no thinking and thinking off', async () => {
    let refusals = 0;
    rig = await anthropicRig([
      (_req, res) => {
        res.writeHead(529, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      },
      (_req, res, raw) => {
        const body = JSON.parse(raw);
        const refused = refusal(body, []);
        const toolLoop = body.thinking && body.messages.at(-2).content[0]?.type !== 'thinking';
        if (refused || toolLoop) {
          refusals++;
          res.writeHead(400, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refused ?? 'messages.3.content.0.type: Expected `thinking`' } }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'msg_3', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: ANSWER }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 2 } }));
      },
    ]);
    const answer = await rig.pipeline.chat(messagesRequest({ ...clientBody(), stream: false }));
    expect(answer.choices[0]!.message.content).toBe(ANSWER);
    expect(refusals).toBe(1);
    const retried = JSON.parse(rig.servers[1]!.requests[1]!.body);
    expect(retried.thinking).toBeUndefined();
    expect(retried.context_management).toBeUndefined();
    expect(JSON.stringify(retried.messages)).not.toContain('"thinking"');
    expect(retried.tools).toEqual(TOOLS);
  });
});
