/**
 * The wall: a loopback OpenAI-compatible vendor that breaks on purpose, one documented way per
 * model name (`fb-ok`, `fb-ok-noprefill`, `fb-s01-…` … `fb-s16-…`), as failoverbench v0.1
 * defines it. Its delays run on the injected clock, so a scenario of minutes runs in seconds;
 * its faults are real socket behaviour (a TCP reset before headers, a stall with the socket
 * open, a chunked body that ends without its terminating chunk).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sleep, type Clock } from '@switchyard/core';

/** Sixty words; every healthy completion is exactly this text. */
export const CANONICAL_ANSWER =
  'A gateway proves its worth only on the bad days. When a vendor stalls, throttles or drops a stream halfway, the caller should still get one whole answer, on time, with an honest account of what happened. Anyone can forward a healthy request; trust is earned by handling the broken ones calmly, without hiding damage from anyone relying on it.';
const WORDS = CANONICAL_ANSWER.split(/\s+/);

export interface TimingProfile {
  retryAfterS: number;
  slowTtftS: number;
  stallS: number;
  noResponseS: number;
  flapDownS: number;
  cutAfterTokens: number;
  stallAfterTokens: number;
  malformedAtToken: number;
}

/** failoverbench's `full` (published) and `fast` (shortened) profiles. */
export const PROFILES: Record<'full' | 'shortened', TimingProfile> = {
  full: { retryAfterS: 2, slowTtftS: 20, stallS: 30, noResponseS: 120, flapDownS: 60, cutAfterTokens: 40, stallAfterTokens: 20, malformedAtToken: 10 },
  shortened: { retryAfterS: 2, slowTtftS: 3, stallS: 4, noResponseS: 15, flapDownS: 6, cutAfterTokens: 40, stallAfterTokens: 20, malformedAtToken: 10 },
};

const BEHAVIOURS: Record<string, string> = {
  ok: 'ok',
  'ok-noprefill': 'ok-noprefill',
  s01: '429-retry-after-once',
  s02: '429-persistent',
  s03: '500-once',
  s04: '503-persistent',
  s05: 'reset-once',
  s06: 'no-response',
  s07: 'slow-ttft',
  s08: 'stream-cut',
  s09: 'stream-stall',
  s10: 'malformed-chunk',
  s11: 'no-done',
  s12: 'context-length',
  s13: 'content-filter',
  s14: 'stream-cut',
  s15: 'flap',
  s16: '503-persistent',
};

export function behaviourOf(model: string): string | undefined {
  const name = model.split('/').pop()!.trim().toLowerCase();
  if (!name.startsWith('fb-')) return undefined;
  const rest = name.slice(3);
  if (rest === 'ok' || rest === 'ok-noprefill') return BEHAVIOURS[rest];
  return BEHAVIOURS[rest.split('-')[0]];
}

export interface WallEntry {
  /** Seconds since the last reset, on the wall's clock. */
  t: number;
  model: string;
  attempt: number;
  lastRole?: string;
  action: string;
}

export interface Wall {
  url: string;
  log: WallEntry[];
  timing: TimingProfile;
  reset(): void;
  /** Seconds since the last reset. */
  now(): number;
  close(): Promise<void>;
}

interface ChatBody {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content?: unknown }[];
  stream_options?: { include_usage?: boolean };
}

export async function startWall(clock: Clock, timing: TimingProfile): Promise<Wall> {
  let t0 = clock.now();
  let log: WallEntry[] = [];
  let counts = new Map<string, number>();
  let seq = 0;
  const sockets = new Set<Socket>();
  const now = () => Math.round(clock.now() - t0) / 1000;

  const sendError = (res: http.ServerResponse, status: number, message: string, type: string, code: string | null, extra: Record<string, string> = {}, param: string | null = null) => {
    const body = JSON.stringify({ error: { message, type, param, code } });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
  };

  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return sendError(res, 404, `No route for ${req.method} ${req.url}`, 'invalid_request_error', null);
    let body: ChatBody;
    try {
      body = JSON.parse(raw) as ChatBody;
    } catch {
      return sendError(res, 400, 'Request body is not valid JSON', 'invalid_request_error', null);
    }
    const model = String(body.model ?? '');
    const attempt = (counts.get(model) ?? 0) + 1;
    counts.set(model, attempt);
    seq++;
    const last = body.messages?.at(-1);
    const entry: WallEntry = { t: now(), model, attempt, lastRole: last?.role, action: '' };
    log.push(entry);
    const behaviour = behaviourOf(model);
    if (!behaviour) {
      entry.action = '404 model_not_found';
      return sendError(res, 404, `The model \`${model}\` does not exist`, 'invalid_request_error', 'model_not_found', {}, 'model');
    }

    // A prefill (assistant message last) that is a prefix of the answer gets the remainder.
    let words = WORDS;
    let continuation = false;
    if (last?.role === 'assistant') {
      if (behaviour === 'ok-noprefill') {
        entry.action = '400 prefill_rejected';
        return sendError(res, 400, 'This model does not support assistant message prefill. The conversation must end with a user message.', 'invalid_request_error', 'invalid_prefill', {}, 'messages');
      }
      const partial = String(last.content ?? '').trim();
      if (partial && CANONICAL_ANSWER.startsWith(partial)) {
        words = CANONICAL_ANSWER.slice(partial.length).split(/\s+/).filter(Boolean);
        continuation = true;
      }
    }
    const promptTokens = (body.messages ?? []).reduce((n, m) => n + String(m.content ?? '').split(/\s+/).length + 4, 0);

    switch (behaviour) {
      case '429-retry-after-once':
        if (attempt === 1) {
          entry.action = `429 retry-after=${timing.retryAfterS}`;
          return sendError(res, 429, `Rate limit reached for ${model}. Please retry after ${timing.retryAfterS} seconds.`, 'rate_limit_error', 'rate_limit_exceeded', { 'retry-after': String(timing.retryAfterS) });
        }
        break;
      case '429-persistent':
        entry.action = '429';
        return sendError(res, 429, `Rate limit reached for ${model}.`, 'rate_limit_error', 'rate_limit_exceeded');
      case '500-once':
        if (attempt === 1) {
          entry.action = '500';
          return sendError(res, 500, 'The server had an error while processing your request.', 'server_error', null);
        }
        break;
      case '503-persistent':
        entry.action = '503';
        return sendError(res, 503, 'The engine is currently overloaded. Please try again later.', 'server_error', 'overloaded');
      case 'reset-once':
        if (attempt === 1) {
          entry.action = 'tcp-reset';
          req.socket.resetAndDestroy();
          return;
        }
        break;
      case 'no-response': {
        entry.action = `no-response ${timing.noResponseS}s`;
        const gone = new AbortController();
        req.socket.once('close', () => gone.abort());
        await sleep(clock, timing.noResponseS * 1000, gone.signal).catch(() => undefined);
        req.socket.destroy();
        return;
      }
      case 'context-length':
        entry.action = '400 context_length_exceeded';
        return sendError(res, 400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9631 tokens. Please reduce the length of the messages.", 'invalid_request_error', 'context_length_exceeded', {}, 'messages');
      case 'content-filter':
        entry.action = '400 content_policy_violation';
        return sendError(res, 400, 'Your request was rejected as a result of our safety system.', 'invalid_request_error', 'content_policy_violation');
      case 'flap':
        if (now() < timing.flapDownS) {
          entry.action = '503 (down window)';
          return sendError(res, 503, 'The engine is currently overloaded. Please try again later.', 'server_error', 'overloaded');
        }
        entry.action = '200 (recovered)';
        break;
    }

    const id = `chatcmpl-fb-${seq}`;
    if (!body.stream) {
      entry.action ||= '200';
      const text = (continuation ? ' ' : '') + words.join(' ');
      const json = JSON.stringify({ id, object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: promptTokens, completion_tokens: words.length, total_tokens: promptTokens + words.length } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
      return;
    }
    await streamAnswer(res, { id, model, words, continuation, behaviour, includeUsage: body.stream_options?.include_usage === true, promptTokens, entry });
  });

  const streamAnswer = async (res: http.ServerResponse, a: { id: string; model: string; words: string[]; continuation: boolean; behaviour: string; includeUsage: boolean; promptTokens: number; entry: WallEntry }) => {
    const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({ id: a.id, object: 'chat.completion.chunk', created: 1, model: a.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
    const write = async (data: string) => {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(data, () => resolve()));
      // Let the reader take each event before the next one (the token interval in real time).
      await new Promise<void>((resolve) => setImmediate(resolve));
    };
    const sse = (obj: object) => write(`data: ${JSON.stringify(obj)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (a.behaviour === 'slow-ttft') {
      a.entry.action = `200 stream, first token after ${timing.slowTtftS}s`;
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      await sleep(clock, timing.slowTtftS * 1000, gone.signal).catch(() => undefined);
    }
    await sse(chunk({ role: 'assistant', content: '' }));
    let sent = 0;
    for (const [i, word] of a.words.entries()) {
      if (res.destroyed) return;
      if ((a.behaviour === 'stream-cut') && i === timing.cutAfterTokens) {
        a.entry.action = `200 stream cut after ${i} tokens (no terminating chunk)`;
        res.socket?.destroy();
        return;
      }
      if (a.behaviour === 'stream-stall' && i === timing.stallAfterTokens) {
        a.entry.action = `200 stream stalled after ${i} tokens for ${timing.stallS}s then close`;
        const gone = new AbortController();
        res.once('close', () => gone.abort());
        await sleep(clock, timing.stallS * 1000, gone.signal).catch(() => undefined);
        res.socket?.destroy();
        return;
      }
      if (a.behaviour === 'malformed-chunk' && i === timing.malformedAtToken) {
        a.entry.action = `200 stream with malformed chunk at token ${i}`;
        await write(`data: {"id": "${a.id}", "object": "chat.completion.chunk", "choices": [{"delta": {"content": \n\n`);
      }
      await sse(chunk({ content: i > 0 || a.continuation ? ` ${word}` : word }));
      sent++;
    }
    await sse(chunk({}, 'stop'));
    if (a.includeUsage) await sse({ id: a.id, object: 'chat.completion.chunk', created: 1, model: a.model, choices: [], usage: { prompt_tokens: a.promptTokens, completion_tokens: sent, total_tokens: a.promptTokens + sent } });
    if (a.behaviour === 'no-done') a.entry.action = '200 stream complete, [DONE] omitted';
    else {
      await write('data: [DONE]\n\n');
      a.entry.action ||= '200 stream';
    }
    res.end();
  };

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get log() {
      return log;
    },
    timing,
    now,
    reset() {
      t0 = clock.now();
      log = [];
      counts = new Map();
      seq = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
