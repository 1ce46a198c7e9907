/** A loopback server that answers with whatever sample the running check asks for. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { HttpSample, StreamSample } from './samples.js';

export type Behaviour =
  | { type: 'json'; sample: HttpSample }
  | { type: 'stream'; sample: StreamSample }
  | { type: 'reset' }
  | { type: 'stall' }
  | { type: 'headers-then-stall' };

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface SampleServer {
  url: string;
  behave(behaviour: Behaviour): void;
  requests: SeenRequest[];
  /** Sockets closed by the client while a request was open (aborts). */
  clientAborts: number;
  close(): Promise<void>;
}

function serialise(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}

export async function startSampleServer(): Promise<SampleServer> {
  let behaviour: Behaviour = { type: 'stall' };
  const sockets = new Set<Socket>();
  const state: SampleServer = {
    url: '',
    requests: [],
    clientAborts: 0,
    behave: (b) => {
      behaviour = b;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('close', () => {
        if (!res.writableFinished) state.clientAborts++;
      });
      const b = behaviour;
      switch (b.type) {
        case 'json': {
          const text = serialise(b.sample.body);
          const isJson = typeof b.sample.body !== 'string';
          res.writeHead(b.sample.status ?? 200, { 'content-type': isJson ? 'application/json' : 'text/plain', ...b.sample.headers });
          res.end(text);
          return;
        }
        case 'stream':
          res.writeHead(200, { 'content-type': 'text/event-stream', ...b.sample.headers });
          res.end(b.sample.sse);
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'headers-then-stall':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
          return;
        case 'stall':
          return;
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
