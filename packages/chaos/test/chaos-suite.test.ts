/**
 * Our own chaos suite: every fault of the catalogue, from every vendor, through a pipeline with
 * the real providers and the default policy plugins, on the production undici path (the msw
 * bridge) and virtual time. Checked from both sides: the caller gets a complete answer or a
 * clean, bounded error (never a truncated success), and the vendors see bounded attempts.
 */
import { describe, expect, it } from 'vitest';
import { isSwitchyardError, runWithVirtualTime, type ChatRequest, type StreamPart } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { providers as gemini } from '@switchyard/provider-gemini';
import { retry } from '@switchyard/plugin-retry';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { router } from '@switchyard/plugin-router';
import { hedge } from '@switchyard/plugin-hedge';
import { FAULT_NAMES, type FaultName, type Vendor } from '../src/index.js';
import { failoverRig } from './support/failover-rig.js';

/** Faults that are the request's own doing: never retried, never failed over, reason kept. */
const REQUEST_FAILURES: Partial<Record<FaultName, string>> = { 'context-length': 'context-length', 'content-filter': 'content-filter' };

type Outcome = { kind: 'answer'; text: string; finish: string | null } | { kind: 'error'; errorKind: string; code: string };

async function run(vendor: Vendor, fault: FaultName, stream: boolean) {
  const { clock, pipeline, primaryHandler, backupHandler } = failoverRig(vendor, fault, { seed: 42, keys: ['sk-chaos-primary-0123456789', 'sk-chaos-backup-0123456789'], plugins: [...openai, ...anthropic, ...gemini, circuitBreaker(), retry(), router(), hedge({ tiers: { '*': { continuation: true } } })] });
  const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'chaos' }] };
  const started = clock.now();
  const work = async (): Promise<Outcome> => {
    try {
      if (!stream) {
        const r = await pipeline.chat(request);
        expect(r.choices[0].finish_reason).toBeTruthy();
        return { kind: 'answer', text: r.choices[0].message.content ?? '', finish: r.choices[0].finish_reason };
      }
      const s = await pipeline.stream(request);
      const parts: StreamPart[] = [];
      for await (const p of s) parts.push(p);
      const last = parts[parts.length - 1];
      // Never a truncated success: a stream ends with its finish, or with an error part.
      if (last?.type === 'error') return { kind: 'error', errorKind: last.error.kind, code: last.error.code };
      const finish = parts.find((p) => p.type === 'finish');
      expect(finish).toBeDefined();
      return { kind: 'answer', text: parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join(''), finish: finish?.type === 'finish' ? finish.finishReason : null };
    } catch (error) {
      if (!isSwitchyardError(error)) throw error;
      return { kind: 'error', errorKind: error.kind, code: error.code };
    }
  };
  const outcome = await runWithVirtualTime(clock, work(), { stepMs: 250 });
  const elapsed = clock.now() - started;
  await pipeline.close();
  return { outcome, elapsed, primarySeen: primaryHandler.fault.seen, backupSeen: backupHandler.fault.seen };
}

const vendors: Vendor[] = ['openai', 'anthropic', 'gemini'];
const faultNames = FAULT_NAMES.filter((f) => f !== 'ok');

describe.each(vendors)('chaos suite: %s primary', (vendor) => {
  it.each(faultNames.flatMap((f) => [[f, false] as const, [f, true] as const]))('%s (stream: %s)', async (fault, stream) => {
    const { outcome, elapsed, primarySeen, backupSeen } = await run(vendor, fault, stream);
    const requestFailure = REQUEST_FAILURES[fault];
    if (requestFailure) {
      // The vendor's reason reaches the caller; the request is sent exactly once. (Anthropic
      // refuses inside a 200 answer: finish_reason content_filter rather than an error.)
      if (outcome.kind === 'answer') expect(outcome.finish).toBe('content_filter');
      else expect(outcome).toMatchObject({ kind: 'error', errorKind: requestFailure });
      expect(primarySeen).toBe(1);
      expect(backupSeen).toBe(0);
    } else {
      expect(outcome.kind, JSON.stringify(outcome)).toBe('answer');
      expect((outcome as { text: string }).text.length).toBeGreaterThan(0);
      // Bounded upstream load: one retry at most on the primary, one try on the backup.
      expect(primarySeen).toBeGreaterThanOrEqual(1);
      expect(primarySeen).toBeLessThanOrEqual(2);
      expect(backupSeen).toBeLessThanOrEqual(1);
    }
    // Bounded in time: well inside the 120 s request deadline.
    expect(elapsed).toBeLessThan(stream ? 35_000 : 65_000);
  });
});
