/** Issue 38: two vendors both rate-limiting; the client gets a 429 that says when to come back. */
import { afterEach, expect, it } from 'vitest';
import { VirtualClock } from '@switchyard/core';
import { retry } from '@switchyard/plugin-retry';
import { chatBody, fails, GATEWAY_KEY, pipelineFor, raw, startGateway, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

it("answers 429 with a Retry-After equal to the soonest remaining cooldown among the model's candidates (± 1 s)", async () => {
  const clock = new VirtualClock();
  const primary = await vendor(fails(429, 'rate limited', { headers: { 'retry-after': '20' } }));
  const backup = await vendor(fails(429, 'rate limited', { headers: { 'retry-after': '30' } }));
  const h = await startGateway(pipelineFor({ vendors: { primary, backup }, extra: { clock, plugins: [retry()] } }));
  const ask = () => raw(h.origin, '/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' }, body: chatBody() });

  const first = await ask();
  expect(first.status).toBe(429);
  expect(primary.requests.length + backup.requests.length).toBe(2);

  await clock.advance(5_000);
  const second = await ask();
  // Both cool down: no vendor is called, and the client hears when the first is back (20 s - 5 s).
  expect(primary.requests.length + backup.requests.length).toBe(2);
  expect(second.status).toBe(429);
  expect(second.json.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
  expect(Math.abs(Number(second.headers.get('retry-after')) - 15)).toBeLessThanOrEqual(1);
});
