import { afterEach, describe, expect, it } from 'vitest';
import { candidateRef, definePlugin, STAGE, SwitchyardError, type AttemptOutcome, type Candidate } from '../src/index.js';
import { failClosed, FAILED_CLOSED_CODE, tapMaybeAsync } from '../src/internal.js';
import { completion } from './support/loopback.js';
import { hello, pipelineOver, type Fixture } from './support/fixture-pipeline.js';
import type { Handler } from './support/loopback.js';

const ok = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion(text)));
};
const status = (code: number, body: unknown = { error: { message: `status ${code}` } }): Handler => (_req, res) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('stage contracts', () => {
  it('runs taps in STAGE order and threads waterfalls through classify and route', async () => {
    const order: string[] = [];
    const plugin = definePlugin({
      name: 'order-probe',
      apply(p) {
        p.hooks.route.tapPromise({ name: 'late', stage: STAGE.ORDER }, async (c) => {
          order.push('route:order');
          return [...c].reverse();
        });
        p.hooks.route.tapPromise({ name: 'filter', stage: STAGE.FILTER }, async (c) => {
          order.push('route:filter');
          return c.filter((x) => x.endpoint.name !== 'u2');
        });
        p.hooks.classify.tapPromise({ name: 'classify', stage: STAGE.FIRST }, async (cls) => {
          order.push('classify');
          return { ...cls, tier: 'gold' };
        });
      },
    });
    fx = await pipelineOver([ok('zero'), ok('one'), ok('two')], { plugins: [plugin()] });
    let seenTier: string | undefined;
    fx.pipeline.hooks.route.tap({ name: 'spy', stage: STAGE.LAST }, (c, cls) => {
      seenTier = cls.tier;
      return c;
    });
    const r = await fx.pipeline.chat(hello);
    expect(order).toEqual(['classify', 'route:filter', 'route:order']);
    expect(seenTier).toBe('gold');
    // u2 filtered out, list reversed: u1 answers first.
    expect(r.choices[0].message.content).toBe('one');
    expect(fx.servers[2].requests).toHaveLength(0);
  });

  it('awaits recordAttempt before retry decides, and the first retry tap to answer wins', async () => {
    const log: string[] = [];
    let failuresSeen = 0;
    const plugin = definePlugin({
      name: 'record-then-retry',
      apply(p) {
        p.hooks.recordAttempt.tapPromise('counter', async (o) => {
          // A turn of the event loop, as a store's answer takes: retry must wait for it.
          await new Promise((r) => setImmediate(r));
          if (!o.ok) failuresSeen++;
          log.push(`record:${o.attempt}:${o.ok}`);
        });
        p.hooks.retry.tapPromise({ name: 'decider', stage: STAGE.DEFAULT }, async (o) => {
          log.push(`retry:${o.attempt}:seen=${failuresSeen}`);
          return failuresSeen < 2 ? { action: 'retry', delayMs: 0 } : undefined;
        });
        p.hooks.retry.tapPromise({ name: 'fallback', stage: STAGE.LAST }, async () => {
          log.push('fallback');
          return { action: 'next' };
        });
      },
    });
    let calls = 0;
    fx = await pipelineOver(
      [
        (req, res, body) => (++calls <= 2 ? status(500)(req, res, body) : ok('third time')(req, res, body)),
        ok('backup'),
      ],
      { plugins: [plugin()] },
    );
    const r = await fx.pipeline.chat(hello);
    // The decider retried once (it had already counted one failure), abstained on the second,
    // so the later tap decided to fail over; the retry tap never ran for the success.
    expect(log).toEqual(['record:1:false', 'retry:1:seen=1', 'record:2:false', 'retry:2:seen=2', 'fallback', 'record:3:true']);
    expect(r.choices[0].message.content).toBe('backup');
    expect(fx.servers[0].requests).toHaveLength(2);
  });

  it('a throwing record tap never fails a request and is reported as plugin-error', async () => {
    const plugin = definePlugin({
      name: 'bad-observer',
      apply(p) {
        p.hooks.recordAttempt.tap('explodes', () => {
          throw new Error('boom');
        });
        p.hooks.recordRequest.tapPromise('explodes-too', async () => {
          throw new Error('bang');
        });
      },
    });
    fx = await pipelineOver([ok('fine')], { plugins: [plugin()] });
    const errors: string[] = [];
    fx.pipeline.events.on('plugin-error', (e) => errors.push(`${e.stage}:${(e.error as Error).message}`));
    const r = await fx.pipeline.chat(hello);
    expect(r.choices[0].message.content).toBe('fine');
    expect(errors.sort()).toEqual(['recordAttempt:boom', 'recordRequest:bang']);
  });

  it('a fail-closed record tap refuses the request, synchronous or not; a contained one never does', async () => {
    for (const sync of [true, false]) {
      const plugin = definePlugin({
        name: 'charger',
        apply(p) {
          const charge = () => {
            throw new Error('ledger down');
          };
          if (sync) p.hooks.recordAttempt.tap(failClosed({ name: 'charge' }), charge);
          else p.hooks.recordAttempt.tapPromise(failClosed({ name: 'charge' }), async () => charge());
        },
      });
      fx = await pipelineOver([ok('fine')], { plugins: [plugin()] });
      const reported: string[] = [];
      fx.pipeline.events.on('plugin-error', (e) => reported.push(`${e.plugin}:${e.stage}`));
      const err = await fx.pipeline.chat(hello).catch((e) => e);
      expect(err.code, `sync=${sync}`).toBe(FAILED_CLOSED_CODE);
      expect(err.message).toContain('ledger down');
      expect(reported).toEqual(['charge:recordAttempt']);
      await fx.close();
      fx = undefined;
    }
  });

  it('record taps answered at once or later (tapMaybeAsync) are contained, or refuse the request when fail-closed', async () => {
    const failures = {
      throws: () => {
        throw new Error('ledger down');
      },
      rejects: () => Promise.reject(new Error('ledger down')),
    };
    for (const [how, charge] of Object.entries(failures)) {
      for (const closed of [false, true]) {
        let recorded = 0;
        const plugin = definePlugin({
          name: 'charger',
          apply(p) {
            tapMaybeAsync(p.hooks.recordAttempt, closed ? failClosed({ name: 'charge' }) : { name: 'charge' }, charge);
            tapMaybeAsync(p.hooks.recordRequest, { name: 'count' }, () => {
              recorded++;
            });
          },
        });
        fx = await pipelineOver([ok('fine')], { plugins: [plugin()] });
        const reported: string[] = [];
        fx.pipeline.events.on('plugin-error', (e) => reported.push(`${e.plugin}:${e.stage}:${(e.error as Error).message}`));
        const answer = await fx.pipeline.chat(hello).catch((e: SwitchyardError) => e);
        if (closed) expect((answer as SwitchyardError).code, how).toBe(FAILED_CLOSED_CODE);
        else expect((answer as { choices: { message: { content: string } }[] }).choices[0].message.content, how).toBe('fine');
        expect(reported, how).toEqual(['charge:recordAttempt:ledger down']);
        expect(recorded, how).toBe(1);
        await fx.close();
        fx = undefined;
      }
    }
  });

  it('ctx.respond() settles the request early with no upstream attempt', async () => {
    const plugin = definePlugin({
      name: 'early',
      apply(p) {
        p.hooks.classify.tapPromise('cache', async (cls, ctx) => {
          ctx.respond({ id: 'cached', object: 'chat.completion', created: 1, model: 'mx', choices: [{ index: 0, message: { role: 'assistant', content: 'from cache' }, finish_reason: 'stop' }] });
          return cls;
        });
      },
    });
    fx = await pipelineOver([ok('upstream')], { plugins: [plugin()] });
    const r = await fx.pipeline.chat(hello);
    expect(r.choices[0].message.content).toBe('from cache');
    expect(r.switchyard?.attempts).toBe(0);
    const s = await fx.pipeline.stream(hello);
    expect((await s.collect()).choices[0].message.content).toBe('from cache');
    expect(fx.servers[0].requests).toHaveLength(0);
  });

  it('ctx.runAttempt() goes through call and recordAttempt', async () => {
    const recorded: AttemptOutcome[] = [];
    let other: Candidate | undefined;
    const plugin = definePlugin({
      name: 'runner',
      apply(p) {
        p.hooks.recordAttempt.tap('rec', (o) => {
          recorded.push(o);
        });
        p.hooks.route.tapPromise('grab', async (c, _cls, ctx) => {
          other = c[1];
          const result = await ctx.runAttempt(c[1], { initiator: 'runner' });
          if (result.type === 'response') ctx.respond(result.response);
          return c;
        });
      },
    });
    fx = await pipelineOver([ok('first'), ok('second')], { plugins: [plugin()] });
    const r = await fx.pipeline.chat(hello);
    expect(r.choices[0].message.content).toBe('second');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ ok: true, initiator: 'runner', candidate: { id: other!.id } });
  });

  it('degrade answers when every candidate failed, and the answer is labelled', async () => {
    const plugin = definePlugin({
      name: 'canned',
      apply(p) {
        p.hooks.degrade.tapPromise('canned', async (error) => ({
          level: 'canned',
          response: { id: 'x', object: 'chat.completion', created: 1, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: `sorry (${error.kind})` }, finish_reason: 'stop' }] },
        }));
      },
    });
    fx = await pipelineOver([status(503), status(500)], { plugins: [plugin()] });
    const degraded: string[] = [];
    fx.pipeline.events.on('degraded', (e) => degraded.push(e.level));
    const r = await fx.pipeline.chat(hello);
    expect(r.choices[0].message.content).toBe('sorry (all-candidates-failed)');
    expect(r.switchyard?.degraded).toBe('canned');
    expect(degraded).toEqual(['canned']);
  });
});

describe('default behaviour without policy plugins', () => {
  it('fails over in priority order on endpoint failures and reports every attempt', async () => {
    fx = await pipelineOver([status(503), status(502), ok('third')]);
    const r = await fx.pipeline.chat(hello);
    expect(r.choices[0].message.content).toBe('third');
    expect(r.switchyard).toMatchObject({ endpoint: 'u2', attempts: 3 });
  });

  it('does not retry or fail over a request failure; the vendor reason reaches the caller', async () => {
    fx = await pipelineOver([status(400, { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } }), ok('never')]);
    const err = await fx.pipeline.chat(hello).catch((e) => e);
    expect(SwitchyardError.isInstance(err)).toBe(true);
    expect(err.kind).toBe('context-length');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/maximum context length/);
    expect(fx.servers[0].requests).toHaveLength(1);
    expect(fx.servers[1].requests).toHaveLength(0);
  });

  it('an all-failed request carries every attempt error and no key', async () => {
    fx = await pipelineOver([status(503), status(401, { error: { message: 'bad key sk-test-secret-key-1-abcdefghijkl' } })]);
    const err = await fx.pipeline.chat(hello).catch((e) => e);
    expect(err.kind).toBe('all-candidates-failed');
    expect(err.attempts.map((a: SwitchyardError) => a.kind)).toEqual(['overloaded', 'auth']);
    expect(JSON.stringify(err.toJSON())).not.toContain('abcdefghijkl');
    expect(err.attempts[1].message).not.toContain('abcdefghijkl');
    expect(err.attempts[1].keyId).toBe('u1#0');
  });
});

describe('bad input', () => {
  it.each([
    [{ model: 'chat' }, 'messages'],
    [{ model: 'chat', messages: [] }, 'messages'],
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
    [{ model: 'chat', messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    [{ model: 'chat', messages: [{ role: 'user', content: 42 }] }, 'messages[0].content'],
    [{ model: 'chat', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }, 'temperature'],
    ['not json at all', '(body)'],
  ])('%j fails with a coded error naming %s and no upstream attempt', async (request, path) => {
    fx = await pipelineOver([ok('x')]);
    const err = await fx.pipeline.chat(request as never).catch((e) => e);
    expect(err.code).toBe('SWITCHYARD_ERR_INVALID_REQUEST');
    expect(err.path).toBe(path);
    expect(fx.servers[0].requests).toHaveLength(0);
  });

  it('an unknown logical model fails with a coded error listing the known ones', async () => {
    fx = await pipelineOver([ok('x')]);
    const err = await fx.pipeline.chat({ ...hello, model: 'gpt-9' }).catch((e) => e);
    expect(err.code).toBe('SWITCHYARD_ERR_UNKNOWN_MODEL');
    expect(err.message).toContain('chat');
    expect(fx.servers[0].requests).toHaveLength(0);
  });
});

describe('plugins at load', () => {
  it('bad options fail at creation with a coded error naming the field', async () => {
    const { z } = await import('zod');
    const p = definePlugin({ name: 'needs-number', optionsSchema: z.object({ max: z.number().int().positive() }), apply() {} });
    expect(() => p({ max: -1 } as never)).toThrowError(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'max' }));
  });

  it('a plugin for another core major fails at load', async () => {
    const p = definePlugin({ name: 'future', core: '^9.0.0', apply() {} });
    await expect(pipelineOver([ok('x')], { plugins: [p()] })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_VERSION_MISMATCH' });
  });

  it('a missing dependency fails at load', async () => {
    const p = definePlugin({ name: 'needs-health', dependencies: ['@switchyard/plugin-health'], apply() {} });
    await expect(pipelineOver([ok('x')], { plugins: [p()] })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_DEPENDENCY' });
  });

  it('hooks are frozen', async () => {
    fx = await pipelineOver([ok('x')]);
    expect(Object.isFrozen(fx.pipeline.hooks)).toBe(true);
    expect(() => {
      (fx!.pipeline.hooks as Record<string, unknown>).call = null;
    }).toThrow();
  });
});

describe('failover hook', () => {
  it('refines the remaining candidates, in STAGE order, before the next one is taken', async () => {
    const seen: { tap: string; remaining: string[]; failed: string }[] = [];
    const plugin = definePlugin({
      name: 'failover-probe',
      apply(p) {
        p.hooks.failover.tapPromise({ name: 'order', stage: STAGE.ORDER }, async (remaining, failed: AttemptOutcome) => {
          seen.push({ tap: 'order', remaining: remaining.map((c) => c.endpoint.name), failed: failed.candidate.endpoint.name });
          return [...remaining].reverse();
        });
        p.hooks.failover.tapPromise({ name: 'filter', stage: STAGE.FILTER }, async (remaining, failed: AttemptOutcome) => {
          seen.push({ tap: 'filter', remaining: remaining.map((c) => c.endpoint.name), failed: failed.candidate.endpoint.name });
          return remaining.filter((c) => c.endpoint.name !== 'u1');
        });
      },
    });
    fx = await pipelineOver([status(503), ok('one'), ok('two'), ok('three')], { plugins: [plugin()] });
    const r = await fx.pipeline.chat(hello);
    expect(seen).toEqual([
      { tap: 'filter', remaining: ['u1', 'u2', 'u3'], failed: 'u0' },
      { tap: 'order', remaining: ['u2', 'u3'], failed: 'u0' },
    ]);
    // u1 filtered out, the rest reversed: u3 answers.
    expect(r.choices[0].message.content).toBe('three');
    expect(fx.servers[1].requests).toHaveLength(0);
    expect(fx.servers[2].requests).toHaveLength(0);
  });

  it('does not run when the retry stage fails the request', async () => {
    let runs = 0;
    const plugin = definePlugin({
      name: 'fail-fast',
      apply(p) {
        p.hooks.retry.tapPromise('fail-fast', async () => ({ action: 'fail', reason: 'test' }));
        p.hooks.failover.tapPromise('count', async (remaining) => {
          runs++;
          return remaining;
        });
      },
    });
    fx = await pipelineOver([status(503), ok('one')], { plugins: [plugin()] });
    await expect(fx.pipeline.chat(hello)).rejects.toMatchObject({ kind: 'all-candidates-failed' });
    expect(runs).toBe(0);
    expect(fx.servers[1].requests).toHaveLength(0);
  });
});

describe('events built without spreads', () => {
  it('attempt:end and request:end carry every field of the recorded outcomes but the clock reading, plus the request id', async () => {
    const attempts: AttemptOutcome[] = [];
    const recorded: object[] = [];
    const plugin = definePlugin({
      name: 'recorder',
      apply(p) {
        p.hooks.recordAttempt.tap('recorder', (outcome) => void attempts.push(outcome));
        p.hooks.recordRequest.tap('recorder', (outcome) => void recorded.push(outcome));
      },
    });
    fx = await pipelineOver([status(503), ok('hi')], { plugins: [plugin()] });
    const attemptEnds: Record<string, unknown>[] = [];
    const requestEnds: Record<string, unknown>[] = [];
    fx.pipeline.events.on('attempt:end', (e) => void attemptEnds.push(e as unknown as Record<string, unknown>));
    fx.pipeline.events.on('request:end', (e) => void requestEnds.push(e as unknown as Record<string, unknown>));
    const before = Date.now();
    const answer = await fx.pipeline.chat(hello);
    const after = Date.now();
    expect(attemptEnds).toHaveLength(2);
    attemptEnds.forEach((event, i) => {
      // The outcome's end on the pipeline's clock is for the taps (one reading for all of them): no event or record carries it.
      const { endedAt, ...fields } = attempts[i];
      expect(endedAt).toBeGreaterThanOrEqual(before + attempts[i].latencyMs);
      expect(endedAt).toBeLessThanOrEqual(after);
      expect(Object.keys(event).sort()).toEqual([...Object.keys(fields), 'requestId'].sort());
      // The candidate by reference: no key leaves the request.
      expect(event).toEqual({ ...fields, candidate: candidateRef(attempts[i].candidate), requestId: requestEnds[0].requestId });
      expect(event).not.toBe(attempts[i]);
    });
    expect(Object.keys(requestEnds[0]).sort()).toEqual([...Object.keys(recorded[0]), 'requestId', 'tier', 'caller'].sort());
    const { attempts: recordedAttempts, ...rest } = recorded[0] as { attempts: AttemptOutcome[] };
    expect(requestEnds[0]).toMatchObject(rest);
    expect(requestEnds[0].attempts).toEqual(recordedAttempts.map(({ endedAt: _endedAt, ...a }) => ({ ...a, candidate: candidateRef(a.candidate) })));
    expect(JSON.stringify(requestEnds[0])).not.toContain('endedAt');
    expect(JSON.stringify(requestEnds[0])).not.toContain('sk-test-secret');
    expect(requestEnds[0].requestId).toMatch(/.+/);
    // The answer's own info replaces the vendor answer's field; the answer keeps every other field.
    expect(answer.switchyard).toMatchObject({ endpoint: 'u1', attempts: 2 });
    expect(answer.choices[0].message.content).toBe('hi');
  });
});
