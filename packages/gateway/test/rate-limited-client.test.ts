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

it('after attempts that all met 429s, the Retry-After is the soonest cooldown among every candidate, not the last vendor\'s', async () => {
  const clock = new VirtualClock();
  let primaryWait = '10';
  const primary = await vendor((req, res, body) => fails(429, 'rate limited', { headers: { 'retry-after': primaryWait } })(req, res, body));
  const backup = await vendor(fails(429, 'rate limited', { headers: { 'retry-after': '60' } }));
  const h = await startGateway(pipelineFor({ vendors: { primary, backup }, extra: { clock, plugins: [retry()] } }));
  const ask = () => raw(h.origin, '/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' }, body: chatBody() });

  // Both tried: the primary is back in 10 s, the backup (asked last) in 60 s.
  const first = await ask();
  expect([first.status, primary.requests.length, backup.requests.length]).toEqual([429, 1, 1]);
  expect(Math.abs(Number(first.headers.get('retry-after')) - 10)).toBeLessThanOrEqual(1);

  // 11 s later the primary is tried again and asks for 120 s; the backup, still cooling, is not tried: back in 49 s.
  await clock.advance(11_000);
  primaryWait = '120';
  const second = await ask();
  expect([second.status, primary.requests.length, backup.requests.length]).toEqual([429, 2, 1]);
  expect(Math.abs(Number(second.headers.get('retry-after')) - 49)).toBeLessThanOrEqual(1);
});
