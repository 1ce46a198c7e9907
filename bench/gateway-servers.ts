/**
 * Child process for bench/gateway.ts: the contenders, each in front of the same upstreams.
 * - thin: the thinnest useful node:http failover proxy (undici request, next upstream on 5xx)
 * - gateway: @switchyard/gateway with retry, breaker and router plugins
 * Prints one JSON line with the URLs, then serves until killed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { createPipeline, createUndiciTransport, type Plugin } from '@switchyard/core';
import { createGateway } from '@switchyard/gateway';
import { providers } from '@switchyard/provider-openai';
import { retry } from '@switchyard/plugin-retry';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { router } from '@switchyard/plugin-router';

const [primary, secondary] = process.argv.slice(2);
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

const thin = http.createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  for (const base of [primary, secondary]) {
    const up = await request(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher: agent });
    if (up.statusCode >= 500 && base === primary) {
      await up.body.dump();
      continue;
    }
    res.writeHead(up.statusCode, { 'content-type': 'application/json' });
    for await (const c of up.body) res.write(c);
    res.end();
    return;
  }
});
await new Promise<void>((r) => thin.listen(0, '127.0.0.1', r));

/** Both gateways serve the same two upstreams; only their plugins differ. */
const pipelineWith = (plugins: Plugin[]) =>
  createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai-compatible', baseUrl: primary },
      { name: 'secondary', provider: 'openai-compatible', baseUrl: secondary },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'bench-model' }, { endpoint: 'secondary', model: 'bench-model' }] },
    providers,
    transport: createUndiciTransport({ dispatcher: agent }),
    plugins,
  });
// Failures in the failing scenario are deterministic and frequent: keep the breaker from
// simply removing the primary, so the failover path itself is what gets measured.
const pipeline = pipelineWith([router(), circuitBreaker({ consecutiveFailures: 1000, failureRatio: 1, minThroughput: 1_000_000 }), retry({ maxAttemptsPerCandidate: 1 })]);
const gateway = createGateway({ pipeline, server: { host: '127.0.0.1', port: 0, maxInFlight: 100_000 } });
const address = await gateway.listen();
// The same gateway with the core's default failover only, to show what the policy plugins cost.
const bare = pipelineWith([]);
const coreGateway = createGateway({ pipeline: bare, server: { host: '127.0.0.1', port: 0, maxInFlight: 100_000 } });
const coreAddress = await coreGateway.listen();

process.stdout.write(JSON.stringify({ thin: `http://127.0.0.1:${(thin.address() as AddressInfo).port}/v1`, gateway: address.url, coreGateway: coreAddress.url }) + '\n');
process.on('SIGTERM', () => process.exit(0));
