/**
 * The mechanisms core offers plugin authors, so each package can own its words: published
 * hooks (defineHooks), the seam that taps every provider's `call` (tapEveryCall), and
 * definePlugin's options typing.
 */
import { SyncHook } from 'tapable';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createPipeline, defineHooks, definePlugin, defineProvider, STAGE, tapEveryCall, type CallHook, type Pipeline, type SwitchyardError } from '../src/index.js';
import { testProvider } from './support/test-provider.js';
import { completion } from './support/loopback.js';
import { hello, pipelineOver, type Fixture } from './support/fixture-pipeline.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const bare = (): Pipeline => createPipeline({ endpoints: [], models: {} });

describe('defineHooks: hooks one plugin publishes and others tap', () => {
  const LIMITER_HOOKS = defineHooks('@acme/limiter', () => ({ refused: new SyncHook<[{ model: string }]>(['refusal']) }));

  it('gives the publisher and its tappers the same hooks per pipeline, whichever asks first', () => {
    const seen: string[] = [];
    const pipeline = bare();
    // The tapper is applied before the publisher: the hooks exist from the first ask.
    LIMITER_HOOKS.of(pipeline).refused.tap('@acme/alerts', ({ model }) => void seen.push(model));
    LIMITER_HOOKS.of(pipeline).refused.call({ model: 'chat' });
    expect(seen).toEqual(['chat']);
    expect(LIMITER_HOOKS.of(pipeline)).toBe(LIMITER_HOOKS.of(pipeline));
    expect(LIMITER_HOOKS.of(bare())).not.toBe(LIMITER_HOOKS.of(pipeline));
    expect(LIMITER_HOOKS.owner).toBe('@acme/limiter');
  });

  it('shares hooks between two copies of the same definition (a package loaded twice)', () => {
    const copy = defineHooks('@acme/limiter', () => ({ refused: new SyncHook<[{ model: string }]>(['refusal']) }));
    const pipeline = bare();
    expect(copy.of(pipeline)).toBe(LIMITER_HOOKS.of(pipeline));
  });
});

describe('tapEveryCall: one seam over every provider', () => {
  it('taps the providers there when applied and any registered later, once each', async () => {
    const tapped: string[] = [];
    const seenAttempts: string[] = [];
    const watcher = definePlugin({
      name: 'watcher',
      apply(pipeline) {
        tapEveryCall(pipeline, (hook, providerId) => {
          tapped.push(providerId);
          hook.tap({ name: 'watcher', stage: STAGE.FIRST }, (attempt) => {
            seenAttempts.push(`${providerId}:${attempt.candidate.deploymentId}`);
            return undefined;
          });
        });
      },
    });
    fx = await pipelineOver([(_req, res) => void res.end(JSON.stringify(completion('hi')))], { plugins: [watcher()] });
    expect(tapped).toEqual(['test']);
    // A provider registered after the plugin was applied is tapped too.
    const late = defineProvider({ ...testProvider, id: 'late' });
    fx.pipeline.registerProvider(late);
    expect(tapped).toEqual(['test', 'late']);
    fx.pipeline.registerProvider(late);
    expect(tapped).toEqual(['test', 'late']);
    await fx.pipeline.chat(hello);
    expect(seenAttempts).toEqual(['test:u0/m0']);
  });

  /** A plugin whose synchronous tap runs first on every provider's `call`; the vendor counts the requests it gets. */
  const firstTap = (name: string, fn: Parameters<CallHook['tap']>[1]) =>
    definePlugin({ name, apply: (pipeline) => tapEveryCall(pipeline, (hook) => hook.tap({ name, stage: STAGE.FIRST }, fn)) });
  const countingVendor = (counter: { calls: number }) => [(_req: unknown, res: { end(text: string): void }) => void (counter.calls++, res.end(JSON.stringify(completion('hi'))))];

  it("runs a synchronous tap before the provider's, whose answer ends the call as the bail hook's would", async () => {
    const vendor = { calls: 0 };
    const local = { id: 'local', object: 'chat.completion' as const, created: 0, model: 'local', choices: [{ index: 0, message: { role: 'assistant' as const, content: 'from the tap' }, finish_reason: 'stop' as const }] };
    const answering = firstTap('answering', (attempt) => (attempt.candidate.model === 'm0' ? { type: 'response', response: local } : undefined));
    fx = await pipelineOver(countingVendor(vendor), { plugins: [answering()] });
    const answer = await fx.pipeline.chat(hello);
    expect(answer.choices[0].message.content).toBe('from the tap');
    expect(vendor.calls).toBe(0);
  });

  it("fails the attempt with what a synchronous tap threw, and never calls the provider's tap", async () => {
    const vendor = { calls: 0 };
    const failing = firstTap('failing', () => {
      throw new Error('the tap refused');
    });
    fx = await pipelineOver(countingVendor(vendor), { plugins: [failing()] });
    const error = (await fx.pipeline.chat(hello).catch((e: unknown) => e)) as SwitchyardError;
    expect(error.kind).toBe('all-candidates-failed');
    expect(error.attempts?.map((a) => [a.deployment, a.message])).toEqual([['u0/m0', 'the tap refused']]);
    expect(vendor.calls).toBe(0);
  });
});

describe('definePlugin options typing', () => {
  it('makes options with defaults optional to the factory and filled in for apply', () => {
    let applied: { pattern: string; status: number; flags: string[] } | undefined;
    const guard = definePlugin({
      name: '@acme/guard',
      optionsSchema: z.object({ pattern: z.string(), status: z.number().int().default(403), flags: z.array(z.string()).default([]) }),
      apply(_pipeline, options) {
        expectTypeOf(options.status).toEqualTypeOf<number>();
        applied = options;
      },
    });
    // Only the required field: the factory's input type leaves the defaulted ones optional.
    const plugin = guard({ pattern: 'secret' });
    expectTypeOf(guard).parameter(0).toEqualTypeOf<{ pattern: string; status?: number; flags?: string[] } | undefined>();
    expect(plugin.options).toEqual({ pattern: 'secret', status: 403, flags: [] });
    plugin.apply(bare());
    expect(applied).toEqual({ pattern: 'secret', status: 403, flags: [] });
    // @ts-expect-error the required field is still required
    expect(() => guard({})).toThrow(/pattern/);
  });
});
