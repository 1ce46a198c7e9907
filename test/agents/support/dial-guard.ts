/**
 * Loopback only, for clients that are native binaries (the Node loopback guard cannot load into
 * them): they get this server as HTTP_PROXY/HTTPS_PROXY with NO_PROXY naming loopback, so every
 * request they try to send anywhere else (telemetry, update checks, model catalogues) arrives here,
 * is written down and refused. A test asserts the list stays empty.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DialGuard {
  url: string;
  dials: string[];
  close(): Promise<void>;
}

export async function startDialGuard(): Promise<DialGuard> {
  const dials: string[] = [];
  const server = http.createServer((req, res) => {
    dials.push(`${req.method} ${req.url}`);
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('loopback only');
  });
  server.on('connect', (req, socket) => {
    socket.on('error', () => undefined);
    dials.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dials,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The proxy variables that send every non-loopback request to the guard. */
export function proxyEnv(guard: DialGuard): NodeJS.ProcessEnv {
  return { HTTP_PROXY: guard.url, HTTPS_PROXY: guard.url, http_proxy: guard.url, https_proxy: guard.url, ALL_PROXY: guard.url, NO_PROXY: '127.0.0.1,localhost,::1', no_proxy: '127.0.0.1,localhost,::1' };
}
