/**
 * A loopback stand-in for an OpenAI-compatible vendor, for the bundle check: answers
 * POST /v1/chat/completions (JSON or SSE) and GET /v1/models. The model "slow" answers after
 * `slowMs`, so a request can be in flight while the gateway is told to stop.
 * Node built-ins only: the check runs it next to a bundle that has no dev dependencies.
 */
import http from 'node:http';

export function startMockVendor({ slowMs = 1500 } = {}) {
  let received = 0;
  const arrivals = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (req.method === 'GET' && path.endsWith('/models')) return json(res, 200, { object: 'list', data: [{ id: 'fast', object: 'model' }, { id: 'slow', object: 'model' }] });
      if (req.method !== 'POST' || !path.endsWith('/chat/completions')) return json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }
      received += 1;
      for (const waiter of arrivals.splice(0)) waiter();
      const text = `echo: ${String(body.messages?.at(-1)?.content ?? '')}`;
      const answer = () => (body.stream ? stream(res, body.model, text) : json(res, 200, completion(body.model, text)));
      if (body.model === 'slow') setTimeout(answer, slowMs);
      else answer();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        get received() {
          return received;
        },
        /** Resolves when the next chat request reaches the vendor. */
        nextArrival: () => new Promise((r) => arrivals.push(r)),
        close: () => new Promise((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
      });
    });
  });
}

function completion(model, text) {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  };
}

function stream(res, model, text) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const events = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    ...text.split(' ').map((word, i) => ({ ...base, choices: [{ index: 0, delta: { content: (i ? ' ' : '') + word }, finish_reason: null }] })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } },
  ];
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function json(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
