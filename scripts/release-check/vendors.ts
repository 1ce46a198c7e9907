/** Loopback stand-ins for the vendors the installed examples call: nothing leaves 127.0.0.1. */
import http from 'node:http';
import net from 'node:net';

export interface MockVendors {
  /** A port that was free a moment ago: connections are refused. */
  refusingUrl: string;
  /** OpenAI-shaped: JSON answers, SSE when the request streams. */
  openaiUrl: string;
  /** Anthropic-shaped JSON answers. */
  anthropicUrl: string;
  requests: { vendor: string; path: string }[];
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startMockVendors(): Promise<MockVendors> {
  const requests: MockVendors['requests'] = [];
  const openai = http.createServer(async (req, res) => {
    const body = await readBody(req);
    requests.push({ vendor: 'openai', path: req.url ?? '' });
    if (req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] }));
      return;
    }
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of ['One, ', 'two, ', 'three.']) res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: word }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id: 'c2', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the local OpenAI mock' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } }),
    );
  });
  const anthropic = http.createServer(async (req, res) => {
    await readBody(req);
    requests.push({ vendor: 'anthropic', path: req.url ?? '' });
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Hello from the fallback' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 4 } }),
    );
  });
  const refusing = net.createServer();
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  const refusingUrl = `http://127.0.0.1:${(refusing.address() as net.AddressInfo).port}/v1`;
  await new Promise<void>((r) => refusing.close(() => r()));
  const [openaiUrl, anthropicUrl] = [await listen(openai), await listen(anthropic)];
  return {
    refusingUrl,
    openaiUrl,
    anthropicUrl,
    requests,
    async close() {
      for (const s of [openai, anthropic]) s.closeAllConnections();
      await Promise.all([openai, anthropic].map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
