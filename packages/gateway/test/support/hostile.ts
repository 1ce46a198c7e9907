/** Attacks and measurements shared by the hostile-input tests (real gateway, real loopback vendors). */
import net from 'node:net';
import { completion, textChunks, type Handler } from './harness.js';

/** A Gemini `generateContent` answer. */
export const geminiAnswers = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 }, modelVersion: 'gemini-test' }));
};

/** An Anthropic Messages answer. */
export const anthropicAnswers = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } }));
};

export const openaiAnswers = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion(text)));
};

/** Finding 1: a `$defs` chain whose definitions each reference the next twice (2^levels when inlined). */
export function refBomb(levels = 22): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) defs[`d${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } };
  defs[`d${levels}`] = { type: 'string' };
  return { model: 'chat', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', $defs: defs, properties: { x: { $ref: '#/$defs/d0' } } } } }] };
}

/** Finding 2: a forwarded field nested `depth` levels deep (about 10 KB at 5,000). */
export function deepNesting(depth = 5000): string {
  return `{"model":"chat","messages":[{"role":"user","content":"hi"}],"metadata_x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

/**
 * Times `/health` while `attack` runs `rounds` times in a row: every sample's latency in ms.
 * Warmed up first, so the numbers are the gateway's, not the first fetch of the process.
 */
export async function healthLatencyDuring(origin: string, attack: () => Promise<unknown>, rounds = 3, intervalMs = 10): Promise<{ worstMs: number; medianMs: number; samples: number[] }> {
  await (await fetch(`${origin}/health`)).text();
  let done = false;
  const work = (async () => {
    try {
      for (let i = 0; i < rounds; i++) await attack();
    } finally {
      done = true;
    }
  })();
  const samples: number[] = [];
  while (!done || samples.length === 0) {
    const started = performance.now();
    const res = await fetch(`${origin}/health`);
    await res.text();
    samples.push(performance.now() - started);
    // The sampling rate of the measurement, not a wait for anything.
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  await work;
  const sorted = [...samples].sort((a, b) => a - b);
  return { worstMs: sorted[sorted.length - 1], medianMs: sorted[Math.floor(sorted.length / 2)], samples };
}

/** An OpenAI stream that sends one chunk every `gapMs`: a slow vendor on a real socket is the fault under test. */
export const sseSlowly = (chunks: string[], gapMs: number): Handler => async (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of textChunks(chunks)) {
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  res.end('data: [DONE]\n\n');
};

/**
 * Raw bytes on a socket (what no HTTP client would send); resolves with the whole answer once
 * the socket closes. `written` resolves once the request bytes were handed to the socket.
 */
export function socketExchange(port: number, request: string, hangUpAfterMs?: number): Promise<string> & { written: Promise<void> } {
  let onWritten!: () => void;
  const written = new Promise<void>((r) => (onWritten = r));
  const answer = new Promise<string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request, () => onWritten()));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('close', () => {
      onWritten();
      resolve(text);
    });
    socket.on('error', () => resolve(text));
    // The client hanging up mid-request is the fault under test.
    if (hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), hangUpAfterMs);
  });
  return Object.assign(answer, { written });
}
