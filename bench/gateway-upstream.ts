/**
 * Child process for bench/gateway.ts: two mock vendors, and the URL of a dead one (a port that
 * was bound and closed again, so connections are refused); prints them as one JSON line. The
 * primary also plays the failures of upstream.ts under a path prefix (`/r429`, `/slow<ms>`, `/cut`).
 */
import net from 'node:net';
import { startUpstream } from './upstream.js';

const primary = await startUpstream();
const secondary = await startUpstream();
const probe = net.createServer();
await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
const deadPort = (probe.address() as net.AddressInfo).port;
await new Promise<void>((r) => probe.close(() => r()));
// `{ failEvery }` sets the primary's 503 share; `{ counts: true }` answers with what the primary answered.
process.on('message', (m: { failEvery?: number; counts?: boolean }) => {
  if (m.counts) process.send!({ counts: primary.counts() });
  else primary.setFailureEvery(m.failEvery ?? 0);
});
process.stdout.write(JSON.stringify({ primary: primary.url, secondary: secondary.url, dead: `http://127.0.0.1:${deadPort}/v1` }) + '\n');
