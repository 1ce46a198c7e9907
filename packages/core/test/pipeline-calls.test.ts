/**
 * `pipeline.chat()`, `stream()` and `embeddings()` are not async functions (they hand back the
 * request run's own promise): a request the checks refuse must still reject, never throw
 * synchronously at the caller.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchyardError, type SwitchyardError } from '../src/index.js';
import { sseBody, textChunks } from './support/loopback.js';
import { hello, pipelineOver, type Fixture } from './support/fixture-pipeline.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('a refused request', () => {
  it('rejects, never throws, whatever the call and whatever is wrong', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sseBody(textChunks(['ok'])));
      },
    ]);
    const { pipeline } = fx;
    const calls: [string, () => Promise<unknown>, string][] = [
      ['chat without messages', () => pipeline.chat({ model: 'chat' } as never), 'invalid-request'],
      ['stream of an unknown model', () => pipeline.stream({ ...hello, model: 'nope' }), 'unknown-model'],
      ['chat of nothing', () => pipeline.chat(undefined as never), 'invalid-request'],
      ['embeddings without input', () => pipeline.embeddings({ model: 'chat' } as never), 'invalid-request'],
    ];
    for (const [what, call, kind] of calls) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call()), what).not.toThrow();
      const error = await promise!.then(
        () => undefined,
        (e: SwitchyardError) => e,
      );
      expect(isSwitchyardError(error), what).toBe(true);
      expect(error!.kind, what).toBe(kind);
    }
    // The pipeline still answers after them.
    const stream = await pipeline.stream(hello);
    let text = '';
    for await (const part of stream) if (part.type === 'text-delta') text += part.text;
    expect(text).toBe('ok');
  });
});
