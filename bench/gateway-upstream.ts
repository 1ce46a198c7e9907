/** Child process for bench/gateway.ts: two mock vendors; prints their URLs as one JSON line. */
import { startUpstream } from './upstream.js';

const primary = await startUpstream();
const secondary = await startUpstream();
process.on('message', (m: { failEvery?: number }) => primary.setFailureEvery(m.failEvery ?? 0));
process.stdout.write(JSON.stringify({ primary: primary.url, secondary: secondary.url }) + '\n');
