/**
 * The shipped production config, served the way every deployment serves it (the CLI's serve
 * path, with its plugins and the Redis store), answers the paths the deployment files probe:
 * the image's HEALTHCHECK script, the pod's liveness and readiness probes, Prometheus' scrape.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@switchyard/cli';
import { PRODUCTION_CONFIG, PRODUCTION_ENV, ROOT, readYaml, readYamlDocuments, repoPath } from './support.js';

let vendor: http.Server;
let served: RunningServer;
let base: string;
let stderr = '';

beforeAll(async () => {
  vendor = http.createServer((req, res) => {
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'deployed' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  const env = {
    ...PRODUCTION_ENV,
    SWITCHYARD_HOST: '127.0.0.1',
    OPENAI_BASE_URL: `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/v1`,
    REDIS_URL: `redis://127.0.0.1:${process.env.SWITCHYARD_REDIS_PORT ?? 6390}`,
    SWITCHYARD_REDIS_PREFIX: `deploy-test-${process.pid}:`,
    // The shared test Redis persists nothing: it opts out of the persistence check.
    SWITCHYARD_DURABLE_REDIS: 'trust',
  };
  const io = { out: { write: () => {} }, err: { write: (s: string) => void (stderr += s) }, env, cwd: ROOT };
  served = await startServer({ file: repoPath(PRODUCTION_CONFIG), io, watch: false, overrides: { port: 0 }, signals: { on: () => process, off: () => process } });
  base = `http://127.0.0.1:${served.address.port}`;
});

afterAll(async () => {
  await served?.stop();
  await new Promise((r) => vendor?.close(r));
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

describe('the production config, served', () => {
  it('answers the Dockerfile HEALTHCHECK script', async () => {
    const run = (url: string) =>
      new Promise<number>((resolve) => {
        execFile(process.execPath, [repoPath('deploy/healthcheck.mjs')], { env: { PATH: process.env.PATH, SWITCHYARD_HEALTH_URL: url } }, (error) => resolve(error ? ((error as { code?: number }).code ?? 1) : 0));
      });
    expect(await run(`${base}/health`)).toBe(0);
    expect(await run(`${base}/no-such-path`)).toBe(1);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await run(`http://127.0.0.1:${port}/health`)).toBe(1);
  });

  it('answers the pod probes: liveness and readiness', async () => {
    const deployment = readYamlDocuments('deploy/kubernetes/deployment.yaml')[0];
    const container = deployment.spec.template.spec.containers[0];
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
      const response = await get(probe.httpGet.path);
      expect(response.status, probe.httpGet.path).toBe(200);
    }
    expect(container.livenessProbe.httpGet.path).toBe('/health');
    expect(container.readinessProbe.httpGet.path).toBe('/ready');
  });

  it('serves the metrics Prometheus scrapes, with the gateway key', async () => {
    const job = readYaml('deploy/prometheus.yml').scrape_configs[0];
    expect((await get(job.metrics_path)).status).toBe(401);
    const response = await get(job.metrics_path, { authorization: `Bearer ${PRODUCTION_ENV.SWITCHYARD_API_KEY}` });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('switchyard_gateway_requests_total');
  });

  it('answers a chat completion through its plugins and the Redis store, without printing a key', async () => {
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PRODUCTION_ENV.SWITCHYARD_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe('deployed');
    for (const key of Object.values(PRODUCTION_ENV)) expect(stderr).not.toContain(key);
  });
});
