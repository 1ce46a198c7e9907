/**
 * A TLS loopback upstream with a self-signed certificate made on the spot (openssl), which
 * counts TLS handshakes and tells which connection each request arrived on.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function selfSignedCert(): { cert: string; key: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), key: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface TlsUpstream {
  url: string;
  /** TLS handshakes completed so far. */
  handshakes: number;
  /** For each request, the handshake number of the connection it arrived on and when that handshake finished. */
  requests: { connection: number; handshakeAt: number; arrivedAt: number }[];
  close(): Promise<void>;
}

export async function startTlsUpstream(pem: { cert: string; key: string }, body: unknown): Promise<TlsUpstream> {
  const numbers = new WeakMap<Socket, { n: number; at: number }>();
  const sockets = new Set<Socket>();
  const upstream: TlsUpstream = { url: '', handshakes: 0, requests: [], close: async () => undefined };
  const server = https.createServer({ cert: pem.cert, key: pem.key }, (req, res) => {
    const tag = numbers.get(req.socket) ?? { n: -1, at: 0 };
    upstream.requests.push({ connection: tag.n, handshakeAt: tag.at, arrivedAt: performance.now() });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  server.on('secureConnection', (socket) => {
    numbers.set(socket, { n: ++upstream.handshakes, at: performance.now() });
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return upstream;
}
