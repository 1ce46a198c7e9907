/** Loopback HTTP servers with scripted behaviour, for tests that need real sockets. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void | Promise<void>;

export interface Loopback {
  url: string;
  requests: { path: string; body: string; headers: http.IncomingHttpHeaders }[];
  /** TCP connections open to this server right now. */
  openSockets(): number;
  /** TCP connections accepted so far. */
  acceptedSockets(): number;
  close(): Promise<void>;
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: Loopback['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  let accepted = 0;
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({ path: req.url ?? '', body, headers: req.headers });
    try {
      await handler(req, res, body);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (s) => {
    accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    openSockets: () => sockets.size,
    acceptedSockets: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export function sseBody(chunks: unknown[], done = true): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
}

export function textChunks(text: string[], finish = true): unknown[] {
  const chunks: unknown[] = text.map((t, i) => ({ id: 'c1', model: 'm', choices: [{ delta: { content: t }, finish_reason: null }], i }));
  if (finish) chunks.push({ id: 'c1', model: 'm', choices: [{ delta: {}, finish_reason: 'stop' }] });
  return chunks;
}

export function completion(text: string, model = 'm'): unknown {
  return { id: 'cmpl-1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
}
