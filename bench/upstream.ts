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

/**
 * BENCH_STREAM_EVENTS: the streamed answers' word count (default 13: a short answer, one write);
 * BENCH_STREAM_CHUNK_EVENTS: events per write, with a turn of the event loop between writes
 * (default: the whole stream in one write). A long answer in many chunks is what the lazy
 * pass-through is for; the default is what the tables are judged by.
 */
const SHORT = 'The quick brown fox jumps over the lazy dog again and again .'.split(' ');
const STREAM_EVENTS = Number(process.env.BENCH_STREAM_EVENTS ?? SHORT.length);
const CHUNK_EVENTS = Number(process.env.BENCH_STREAM_CHUNK_EVENTS ?? 0);
const wordsOf = (count: number) => Array.from({ length: count }, (_, i) => SHORT[i % SHORT.length]!);

/**
 * What a request whose text holds this asks for: a long answer (`LONG_ANSWER_WORDS` words) written
 * one event every `LONG_EVENT_GAP_MS` (BENCH_LONG_EVENT_MS, default 1), as vendors stream tokens
 * (the `*-long` modes of bench/requests.ts): each event reaches a contender in a read of its own,
 * however fast the contender is (events a turn of the event loop apart pile up in the socket
 * behind a slower one, which then reads them in fewer, larger reads). The text travels to the
 * vendor in every dialect's pass-through, so no contender's config changes.
 */
export const LONG_ASK = 'Say something long.';
export const LONG_ANSWER_WORDS = 200;
const LONG_EVENT_GAP_MS = Number(process.env.BENCH_LONG_EVENT_MS ?? 1);

/** The same answer as Anthropic's Messages API writes it (JSON). */
const message = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'bench-model',
  content: [{ type: 'text', text: 'The quick brown fox jumps over the lazy dog.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 10 },
});
const anthropicEvent = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The same answer as OpenAI's Responses API writes it (JSON). */
const responseObject = (status: string, output: unknown[], usage: unknown) => ({ id: 'resp_bench', object: 'response', created_at: 1, status, model: 'bench-model', output, usage });
const outputText = 'The quick brown fox jumps over the lazy dog.';
const outputMessage = (text: string) => ({ id: 'msg_bench', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
const responseUsage = { input_tokens: 12, output_tokens: 10, total_tokens: 22 };
const response = JSON.stringify(responseObject('completed', [outputMessage(outputText)], responseUsage));

/** The same answer as the Gemini API writes it: one `GenerateContentResponse`, and its SSE chunks (CRLF-framed, as Google sends them). */
const geminiChunk = (text: string, last: boolean) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
  ...(last ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 13, totalTokenCount: 25 } } : {}),
  modelVersion: 'bench-model',
  responseId: 'gemini-bench',
});
const geminiJson = JSON.stringify(geminiChunk('The quick brown fox jumps over the lazy dog.', true));

/** A streamed answer of these words in each vendor's SSE: Chat Completions, Messages, Responses and Gemini. */
function streamsOf(words: string[]): { chat: string; messages: string; responses: string; gemini: string } {
  const delta = (w: string, i: number) => (i === 0 ? w : ` ${w}`);
  const chat =
    words.map((w, i) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: w } : { content: ` ${w}` }, finish_reason: null }] })}\n\n`).join('') +
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: words.length, total_tokens: 12 + words.length } })}\n\n` +
    'data: [DONE]\n\n';
  const messages =
    anthropicEvent('message_start', { message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'bench-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }) +
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
    anthropicEvent('ping', {}) +
    words.map((w, i) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: delta(w, i) } })).join('') +
    anthropicEvent('content_block_stop', { index: 0 }) +
    anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words.length } }) +
    anthropicEvent('message_stop', {});
  let sequence = 0;
  const responsesEvent = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const streamedText = words.map(delta).join('');
  const responses =
    responsesEvent('response.created', { response: responseObject('in_progress', [], null) }) +
    responsesEvent('response.in_progress', { response: responseObject('in_progress', [], null) }) +
    responsesEvent('response.output_item.added', { output_index: 0, item: { id: 'msg_bench', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }) +
    responsesEvent('response.content_part.added', { item_id: 'msg_bench', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }) +
    words.map((w, i) => responsesEvent('response.output_text.delta', { item_id: 'msg_bench', output_index: 0, content_index: 0, delta: delta(w, i) })).join('') +
    responsesEvent('response.output_text.done', { item_id: 'msg_bench', output_index: 0, content_index: 0, text: streamedText }) +
    responsesEvent('response.content_part.done', { item_id: 'msg_bench', output_index: 0, content_index: 0, part: { type: 'output_text', text: streamedText, annotations: [] } }) +
    responsesEvent('response.output_item.done', { output_index: 0, item: outputMessage(streamedText) }) +
    responsesEvent('response.completed', { response: responseObject('completed', [outputMessage(streamedText)], { input_tokens: 12, output_tokens: words.length, total_tokens: 12 + words.length }) });
  const gemini = words.map((w, i) => `data: ${JSON.stringify(geminiChunk(delta(w, i), i === words.length - 1))}\r\n\r\n`).join('');
  return { chat, messages, responses, gemini };
}

const short = streamsOf(wordsOf(STREAM_EVENTS));
const long = streamsOf(wordsOf(LONG_ANSWER_WORDS));
/** An SSE text's events (what a vendor flushes one at a time). */
const eventsOf = (sse: string) => sse.split(/(?<=\r?\n\r?\n)/);

/** What the mock answers on each API path: the JSON body and the SSE text. */
interface Answer {
  json: string;
  sse: string;
  /** The short answer's events, and the long answer's (split once, not per request). */
  events: string[];
  longEvents: string[];
}
const answerOf = (json: string, dialect: keyof typeof short): Answer => ({ json, sse: short[dialect], events: eventsOf(short[dialect]), longEvents: eventsOf(long[dialect]) });
const ANSWERS: Record<string, Answer> = {
  '/v1/chat/completions': answerOf(completion, 'chat'),
  '/v1/messages': answerOf(message, 'messages'),
  '/v1/responses': answerOf(response, 'responses'),
};
const GEMINI = answerOf(geminiJson, 'gemini');

export interface Upstream {
  url: string;
  /** When set, answers 503 to this share of requests (0..1), deterministically every n-th. */
  setFailureEvery(n: number): void;
  /** Requests answered, and 429s answered under `/r429` (the retried-429 scenario's share). */
  counts(): { answered: number; rateLimited: number };
  close(): Promise<void>;
}

/** BENCH_UPSTREAM_DELAY_MS: the mock vendor answers after this long (a vendor's think time; default 0). */
const ANSWER_DELAY_MS = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 0);

/**
 * A failure the mock plays when the base URL starts with it (`http://mock/<behaviour>/v1`):
 * - `/r429`: every other request answers 429 with `retry-after-ms: 1` (and `retry-after: 0`),
 *   the rate limit a retry waits out;
 * - `/slow<ms>`: answers after that many ms (a primary slow enough to be hedged);
 * - `/cut`: a stream stops after half its events and the connection is destroyed (a cut after
 *   the commit point, which a continuation picks up).
 */
const BEHAVIOUR = /^\/(r429|slow(\d+)|cut)(?=\/)/;

export async function startUpstream(): Promise<Upstream> {
  let failEvery = 0;
  let count = 0;
  let rateLimitTurn = 0;
  let rateLimited = 0;
  const server = http.createServer((req, res) => {
    // The body's bytes, searched as bytes: decoding a 120 KB turn that is not ASCII costs V8 300 µs,
    // which the mock vendor would spend on the same two cores as the contenders.
    const chunks: Buffer[] = [];
    const behaviour = BEHAVIOUR.exec(req.url ?? '');
    const url = behaviour ? (req.url ?? '').slice(behaviour[0].length) : (req.url ?? '');
    const delay = behaviour?.[2] ? Number(behaviour[2]) : ANSWER_DELAY_MS;
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (delay > 0 ? setTimeout(answer, delay) : answer()));
    const answer = () => {
      count++;
      if (failEvery > 0 && count % failEvery === 0) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"overloaded","type":"server_error","code":null}}');
        return;
      }
      if (behaviour?.[1] === 'r429' && rateLimitTurn++ % 2 === 0) {
        rateLimited++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1', 'retry-after': '0' });
        res.end('{"error":{"message":"rate limited","type":"rate_limit_error","code":"rate_limit_exceeded"}}');
        return;
      }
      const path = url.split('?', 1)[0]!;
      const gemini = path.endsWith('GenerateContent') || path.endsWith(':generateContent');
      const answer = gemini ? GEMINI : (ANSWERS[path] ?? ANSWERS['/v1/chat/completions']!);
      const body = Buffer.concat(chunks);
      if (gemini ? path.endsWith(':streamGenerateContent') : body.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (body.includes(LONG_ASK)) {
          writeInChunks(res, answer.longEvents, 1, LONG_EVENT_GAP_MS);
          return;
        }
        if (behaviour?.[1] === 'cut') {
          const { events } = answer;
          res.write(events.slice(0, Math.ceil(events.length / 2)).join(''), () => res.destroy());
          return;
        }
        if (CHUNK_EVENTS > 0) {
          writeInChunks(res, answer.events, CHUNK_EVENTS);
          return;
        }
        res.end(answer.sse);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer.json) });
        res.end(answer.json);
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
    counts: () => ({ answered: count, rateLimited }),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** `events` written `per` at a time, a turn of the event loop apart (or `gapMs` apart): a vendor's stream in many chunks. */
function writeInChunks(res: http.ServerResponse, events: string[], per: number, gapMs = 0): void {
  let at = 0;
  const next = () => {
    if (res.destroyed) return;
    const chunk = events.slice(at, at + per).join('');
    at += per;
    if (at >= events.length) res.end(chunk);
    else res.write(chunk, () => (gapMs > 0 ? setTimeout(next, gapMs) : setImmediate(next)));
  };
  next();
}

export const chatBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say something short.' }] });
export const streamBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say something short.' }], stream: true });
