/**
 * How a committed stream ends when the vendor finished and reported its usage (the common case,
 * which committed-stream.ts ends without its end generator): the attempt and the request are
 * recorded once, in that order, before the reader sees done, whether the record hooks answer at
 * once or later; a fail-closed record that throws rejects the reader; a reader that leaves while
 * a record hook waits leaves one request record, never two.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, runWithVirtualTime, STAGE, VirtualClock, type ChatStream, type Clock, type RequestRecord, type StreamPart } from '../src/index.js';
import { failClosed, FAILED_CLOSED_CODE } from '../src/internal.js';
import { sseBody, textChunks, type Handler } from './support/loopback.js';
import { hello, pipelineOver, type Fixture } from './support/fixture-pipeline.js';

const usage = { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 };

/** 'Hel', 'lo', and a finish that carries the usage (as OpenAI's last chunk does with include_usage), or none. */
const finished =
  (withUsage: boolean): Handler =>
  (_req, res) => {
    const chunks = textChunks(['Hel', 'lo']) as { usage?: unknown }[];
    if (withUsage) chunks[chunks.length - 1]!.usage = usage;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(sseBody(chunks));
  };
const finishedWithUsage = finished(true);

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

type RecordStyle = 'none' | 'sync' | 'async';

function recorder(style: RecordStyle, log: string[], options: { throws?: boolean; gate?: Promise<void>; started?: () => void } = {}) {
  return definePlugin({
    name: 'recorder',
    apply(p) {
      const record = () => {
        log.push('recordAttempt');
        if (options.throws) throw new Error('ledger down');
      };
      const name = options.throws ? failClosed({ name: 'charge' }) : 'charge';
      if (style === 'sync') p.hooks.recordAttempt.tap(name, record);
      if (style === 'async')
        p.hooks.recordAttempt.tapPromise(name, async () => {
          options.started?.();
          await options.gate;
          record();
        });
    },
  })();
}

async function readAll(stream: ChatStream, how: 'batches' | 'parts'): Promise<string> {
  let text = '';
  const add = (part: StreamPart) => {
    if (part.type === 'text-delta') text += part.text;
  };
  if (how === 'parts') for await (const part of stream) add(part);
  else for await (const batch of stream.batches()) batch.forEach(add);
  return text;
}

describe('a stream that finished with its usage', () => {
  for (const style of ['none', 'sync', 'async'] as const) {
    for (const how of ['batches', 'parts'] as const) {
      it(`records the attempt, then the request, before its reader sees done (record hook: ${style}, read as ${how})`, async () => {
        const log: string[] = [];
        fx = await pipelineOver([finishedWithUsage], { plugins: [recorder(style, log)] });
        const ends: RequestRecord[] = [];
        fx.pipeline.events.on('attempt:end', (a) => log.push(`attempt:end ${a.ok}`));
        fx.pipeline.events.on('request:end', (end) => {
          log.push(`request:end ${end.ok}`);
          ends.push(end);
        });
        const text = await readAll(await fx.pipeline.stream(hello), how);
        log.push('done');
        expect(text).toBe('Hello');
        expect(log).toEqual([...(style === 'none' ? [] : ['recordAttempt']), 'attempt:end true', 'request:end true', 'done']);
        expect(ends).toHaveLength(1);
        expect(ends[0]!.response?.usage).toEqual(usage);
        expect(ends[0]!.response?.choices[0]?.message.content).toBe('Hello');
        expect(ends[0]!.attempts.map((a) => [a.ok, a.phase])).toEqual([[true, 'post-commit']]);
      });
    }
  }

  for (const style of ['sync', 'async'] as const) {
    it(`rejects its reader when a fail-closed attempt record throws at the end, and counts the request once, never as a success (${style})`, async () => {
      const log: string[] = [];
      fx = await pipelineOver([finishedWithUsage], { plugins: [recorder(style, log, { throws: true })] });
      const ends: RequestRecord[] = [];
      fx.pipeline.events.on('request:end', (end) => ends.push(end));
      const failure = await readAll(await fx.pipeline.stream(hello), 'batches').then(
        () => undefined,
        (error: { code?: string }) => error,
      );
      expect(failure?.code).toBe(FAILED_CLOSED_CODE);
      expect(ends.map((end) => [end.ok, end.error?.kind])).toEqual([[false, 'cancelled']]);
    });
  }

  for (const withUsage of [true, false]) {
    for (const style of ['sync', 'async'] as const) {
      it(`releases the request's timer when a fail-closed request record throws at the end (${style}, ${withUsage ? 'with usage' : 'billed from the text'})`, async () => {
        const clock = new VirtualClock();
        const refuse = definePlugin({
          name: 'refuser',
          apply(p) {
            const name = failClosed({ name: 'audit' });
            const fail = () => {
              throw new Error('audit log down');
            };
            if (style === 'sync') p.hooks.recordRequest.tap(name, fail);
            else p.hooks.recordRequest.tapPromise(name, async () => fail());
          },
        })();
        fx = await pipelineOver([finished(withUsage)], { clock, plugins: [refuse] });
        const stream = await runWithVirtualTime(clock, fx.pipeline.stream(hello));
        const failure = await readAll(stream, 'batches').then(
          () => undefined,
          (error: { code?: string }) => error,
        );
        expect(failure?.code).toBe(FAILED_CLOSED_CODE);
        // Released with the stream's end, not at the request's deadline.
        expect(clock.pendingTimers()).toBe(0);
      });
    }
  }

  it('leaves one request record when its reader leaves while an attempt record waits', async () => {
    const log: string[] = [];
    let open!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const recordStarted = new Promise<void>((resolve) => (started = resolve));
    fx = await pipelineOver([finishedWithUsage], { plugins: [recorder('async', log, { gate, started })] });
    const ends: RequestRecord[] = [];
    fx.pipeline.events.on('request:end', (end) => ends.push(end));
    const reader = (await fx.pipeline.stream(hello)).batches()[Symbol.asyncIterator]();
    const reading = (async () => {
      for (let next = await reader.next(); !next.done; next = await reader.next());
    })();
    await recordStarted;
    // Leaving waits for the end under way, as a generator's return() waits for its running step.
    const leaving = reader.return!();
    open();
    await leaving;
    await reading;
    expect(log).toEqual(['recordAttempt']);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.ok).toBe(false);
    expect(ends[0]!.error?.kind).toBe('cancelled');
  });
});

describe("a stream's latency", () => {
  it('is read once at each point: the commit in its info, the end in both its answer and its record; the answer was created when its attempt started', async () => {
    // Every reading of this clock is a millisecond later than the last: a second reading of one moment shows.
    let now = 1_700_000_000_000;
    const clock: Clock = { now: () => ++now, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>) };
    const ends: RequestRecord[] = [];
    const commits: number[] = [];
    let attemptStart = 0;
    const recorder = definePlugin({
      name: 'attempt-start',
      apply(p) {
        p.hooks.call.for('test').tap({ name: 'attempt-start', stage: STAGE.FIRST }, (attempt) => {
          attemptStart = attempt.startedAt;
          return undefined;
        });
      },
    })();
    fx = await pipelineOver([finishedWithUsage], { clock, plugins: [recorder] });
    fx.pipeline.events.on('request:end', (e) => void ends.push(e));
    fx.pipeline.events.on('stream:commit', (e) => void commits.push(e.ttftMs));
    const before = now;
    const stream = await fx.pipeline.stream(hello);
    // To the commit point, as the attempt read it (its start + its time to first token), from the request's start.
    expect(stream.info.latencyMs).toBe(attemptStart + commits[0]! - (before + 1));
    expect(await readAll(stream, 'batches')).toBe('Hello');
    expect(ends).toHaveLength(1);
    expect(ends[0]!.latencyMs).toBe(ends[0]!.response!.switchyard!.latencyMs);
    // The vendor's chunks say nothing of when: the attempt's start, on the pipeline's clock, in seconds.
    expect(ends[0]!.response!.created).toBe(Math.floor(attemptStart / 1000));
  });
});
