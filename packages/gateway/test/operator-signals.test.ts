/** Issue 38: what an operator reads when a reload is refused or a key is refused. */
import { afterEach, expect, it } from 'vitest';
import { answers, GATEWAY_KEY, pipelineFor, startGateway, stopAll, vendor } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

afterEach(stopAll);

it('counts a rejected reload in /metrics', async () => {
  const primary = await vendor(answers(['ok']));
  const h = await startGateway(pipelineFor({ vendors: { primary } }));
  h.gateway.reloadRejected(new Error('config reload failed: endpoints[0].baseUrl: expected an http(s) URL'));
  const text = await (await fetch(`${h.origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
  expect(text).toMatch(/switchyard_gateway_reloads_total\{result="failed"\} 1/);
});

it('counts a request refused for its key under the route it asked for, and logs it at info', async () => {
  const primary = await vendor(answers(['ok']));
  const logger = recordingLogger();
  const h = await startGateway(pipelineFor({ vendors: { primary } }), { logger });
  expect((await fetch(`${h.origin}/v1/models`)).status).toBe(401);
  const text = await (await fetch(`${h.origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
  expect(text).toMatch(/switchyard_gateway_requests_total\{route="\/v1\/models",status="401"\} 1/);
  expect(text).not.toContain('route="auth"');
  expect(logger.lines.find((l) => l.event === 'access' && l.status === 401)).toMatchObject({ level: 'info', errorCode: 'invalid_api_key' });
});
