/**
 * A gateway whose primary is down: its first key is out of balance (402) and its second
 * answers 503, both echoing the key they were sent; the secondary answers. Breaker after one
 * failure, quota parks the key. Used by the /status tests and the browser test.
 */
import { createPipeline } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { quota } from '@switchyard/plugin-quota';
import { answers, startGateway, vendor, type Handler, type Harness } from './harness.js';
import type { Plugin } from '@switchyard/core';
import type { Logger } from '../../src/index.js';

export const PRIMARY_KEYS = ['sk-Qx7vT2mLp9Rk4Wz8Nc3Hb6Yd', 'sk-Jf5gS8aPq2Lm7Xv4Tn9Ce1Ru'];
export const SECONDARY_KEY = 'sk-Mw3Zk8Vb1Hq6Pd9Lr2Ys5Gt';

const primaryDown: Handler = (req, res) => {
  const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const outOfBalance = key === PRIMARY_KEYS[0];
  res.writeHead(outOfBalance ? 402 : 503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `${outOfBalance ? 'insufficient balance' : 'service unavailable'} for api key ${key} (${key.slice(4, 16)})`, type: outOfBalance ? 'insufficient_quota' : 'server_error', code: outOfBalance ? 'insufficient_quota' : null } }));
};

export async function outageGateway(options: { logger?: Logger; primaryUp?: boolean; plugins?: Plugin[] } = {}): Promise<Harness & { setPrimaryDown(down: boolean): void }> {
  let down = options.primaryUp !== true;
  const healthy = answers(['hello from primary']);
  const primary = await vendor((req, res, body) => (down ? primaryDown(req, res, body) : healthy(req, res, body)));
  const secondary = await vendor(answers(['hello from secondary']));
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai', baseUrl: primary.url, apiKeys: PRIMARY_KEYS },
      { name: 'secondary', provider: 'openai', baseUrl: secondary.url, apiKey: SECONDARY_KEY },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'primary-model' }, { endpoint: 'secondary', model: 'secondary-model', price: { input: 1000, output: 2000 } }] },
    providers: [openaiProvider],
    plugins: [circuitBreaker({ consecutiveFailures: 1, baseOpenMs: 600_000, maxOpenMs: 600_000 }), quota(), ...(options.plugins ?? [])],
  });
  const harness = await startGateway(pipeline, { logger: options.logger });
  return { ...harness, setPrimaryDown: (value) => (down = value) };
}

export const ALL_KEYS = [...PRIMARY_KEYS, SECONDARY_KEY];

/** Every 8-character piece of every key: none may appear in any output. */
export function keyFragments(keys: readonly string[] = ALL_KEYS): string[] {
  const out: string[] = [];
  for (const key of keys) for (let i = 0; i + 8 <= key.length; i++) out.push(key.slice(i, i + 8));
  return out;
}
