import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { startUpstream } from './upstream.js';
import { REQUESTS } from './requests.js';
import { servedBundle, servedConfig, startServed } from './served.js';
import { rssMb } from './contender.js';
import { sendRequests } from './contender.js';

const bundle = process.env.SOAK_BUNDLE ?? servedBundle();
const up = await startUpstream();
const served = await startServed(bundle, up.url, up.url, []);
// Restart it with a short TTL: the served config plus server.responseTtlMs.
served.child.kill();
await new Promise((r) => served.child.once('exit', r));
const dir = path.dirname(served.log);
const { spawn } = await import('node:child_process');
const config = path.join('/tmp', `soak-${process.pid}.yaml`);
writeFileSync(config, servedConfig(up.url, up.url).replace('server: { host: 127.0.0.1, port: 0, maxInFlight: 100000 }', 'server: { host: 127.0.0.1, port: 0, maxInFlight: 100000, responseTtlMs: 2000 }'));
const log = path.join('/tmp', `soak-${process.pid}.log`);
const { openSync } = await import('node:fs');
const child = spawn(process.execPath, [path.join(bundle, 'bin.js'), 'serve', '--config', config, '--no-watch'], { stdio: ['ignore', openSync(log, 'w'), 'inherit'], env: { ...process.env, LOG_LEVEL: 'info', STATE_DIRECTORY: `/tmp/soak-state-${process.pid}` } });
let url = '';
for (let i = 0; i < 200 && !url; i++) {
  await new Promise((r) => setTimeout(r, 50));
  url = /"url":"(http[^"]+)"/.exec(readFileSync(log, 'utf8'))?.[1] ?? '';
}
if (!url) throw new Error(readFileSync(log, 'utf8'));
const pool = new Pool(new URL(url).origin, { connections: 32 });
const { path: p, body } = REQUESTS['responses-stream'];
const journal = () => { const d = `/tmp/soak-state-${process.pid}`; const f = readdirSync(d).find((n) => n.endsWith('.journal')); return f ? statSync(path.join(d, f)).size / 1048576 : 0; };
for (let round = 1; round <= 8; round++) {
  await sendRequests(pool, new URL(url).pathname + p, body, 20_000, 32, 'serve');
  console.log(`${round * 20}k stored answers (TTL 2 s): RSS ${rssMb(child.pid!)!.toFixed(0)} MB, journal ${journal().toFixed(1)} MiB`);
}
child.kill();
process.exit(0);
