/** A loopback mock vendor for benchmarks: fixed OpenAI-shaped answers, as cheap as possible. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'The quick brown fox jumps over the lazy dog.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
});

const words = 'The quick brown fox jumps over the lazy dog again and again .'.split(' ');
const sse =
  words.map((w, i) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: w } : { content: ` ${w}` }, finish_reason: null }] })}\n\n`).join('') +
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 13, total_tokens: 25 } })}\n\n` +
  'data: [DONE]\n\n';

export interface Upstream {
  url: string;
  /** When set, answers 503 to this share of requests (0..1), deterministically every n-th. */
  setFailureEvery(n: number): void;
  close(): Promise<void>;
}

/** BENCH_UPSTREAM_DELAY_MS: the mock vendor answers after this long (a vendor's think time; default 0). */
const ANSWER_DELAY_MS = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 0);

export async function startUpstream(): Promise<Upstream> {
  let failEvery = 0;
  let count = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => (ANSWER_DELAY_MS > 0 ? setTimeout(answer, ANSWER_DELAY_MS) : answer()));
    const answer = () => {
      count++;
      if (failEvery > 0 && count % failEvery === 0) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"overloaded","type":"server_error","code":null}}');
        return;
      }
      if (body.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sse);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
        res.end(completion);
      }
    };
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    setFailureEvery: (n) => {
      failEvery = n;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export const chatBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say something short.' }] });
export const streamBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say something short.' }], stream: true });
