/**
 * Events only observe (DESIGN.md): plugins cooperate through hooks, services and typed request
 * slots, never through the event bus. Every fault of the catalogue runs twice through the same
 * pipeline (real providers, the policy plugins that used to react to events: breaker, health,
 * router, retry, hedge, quota): once with every event recorded, once with every
 * `pipeline.events` listener removed. The caller's outcome, the attempts and what the vendors
 * saw must be the same. The recorded events must carry no key: payloads name candidates by
 * `endpoint#index`, deployment and model.
 */
import { describe, expect, it } from 'vitest';
import { isSwitchyardError, runWithVirtualTime, type ChatRequest, type Pipeline, type SwitchyardEventName } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { retry } from '@switchyard/plugin-retry';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { router } from '@switchyard/plugin-router';
import { hedge } from '@switchyard/plugin-hedge';
import { health } from '@switchyard/plugin-health';
import { quota } from '@switchyard/plugin-quota';
import { FAULT_NAMES, type FaultName, type Vendor } from '../src/index.js';
import { failoverRig } from './support/failover-rig.js';

const KEYS = ['sk-observe-primary-0123456789', 'sk-observe-backup-0123456789'];
/** Every event the first-party packages emit (core's and @switchyard/contracts'). */
const EVENT_NAMES: SwitchyardEventName[] = [
  'request:start', 'attempt:start', 'attempt:end', 'attempt:failed', 'retry', 'failover', 'stream:commit', 'stream:malformed', 'degraded', 'request:end', 'plugin-error', 'idempotency:unshared',
  'breaker:open', 'breaker:half-open', 'breaker:close', 'health:change', 'health:pattern', 'quality:change', 'key:state', 'quota:threshold', 'usage:billed', 'budget:forecast', 'deployment:misconfigured', 'traffic:drift', 'race:skipped', 'cache:lookup',
];

/** Takes every listener off the bus, and keeps any from being added later. */
function silence(pipeline: Pipeline): void {
  const bus = pipeline.events;
  bus.removeAllListeners();
  const refuse = () => bus;
  Object.assign(bus, { on: refuse, once: refuse, addListener: refuse });
}

function record(pipeline: Pipeline): { name: string; json: string }[] {
  const seen: { name: string; json: string }[] = [];
  // A listener on every event, so emitters that check for listeners emit it.
  for (const name of EVENT_NAMES) pipeline.events.on(name, (...args: unknown[]) => void seen.push({ name, json: JSON.stringify(args) }));
  return seen;
}

async function run(vendor: Vendor, fault: FaultName, stream: boolean, mode: 'recorded' | 'silenced') {
  const { clock, pipeline, primaryHandler, backupHandler } = failoverRig(vendor, fault, { seed: 7, keys: [KEYS[0]!, KEYS[1]!], plugins: [...openai, ...anthropic, circuitBreaker({ consecutiveFailures: 1 }), health(), quota(), retry(), router(), hedge({ tiers: { '*': { continuation: true } } })] });
  await pipeline.ready;
  const events = mode === 'recorded' ? record(pipeline) : undefined;
  if (mode === 'silenced') silence(pipeline);
  // Per request: the attempts each made, from the hook (not an event).
  const attempts: string[][] = [];
  pipeline.hooks.recordAttempt.tap('observer', (o) => void attempts.at(-1)!.push(`${o.candidate.id}:${o.ok ? 'ok' : o.error?.kind}`));
  const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'chaos' }] };
  const work = async () => {
    const results: string[] = [];
    // Three requests: the later ones see what the first did to breakers and health.
    for (let i = 0; i < 3; i++) {
      attempts.push([]);
      try {
        if (!stream) results.push(`answer:${(await pipeline.chat(request)).choices[0].message.content}`);
        else results.push(`answer:${await (await pipeline.stream(request)).collect().then((r) => r.choices[0].message.content)}`);
      } catch (error) {
        if (!isSwitchyardError(error)) throw error;
        results.push(`error:${error.code}`);
      }
    }
    return results;
  };
  const results = await runWithVirtualTime(clock, work(), { stepMs: 250 });
  await pipeline.close();
  return { results, attempts, events };
}

const faultNames = FAULT_NAMES.filter((f) => f !== 'ok');

describe.each(['openai', 'anthropic'] as Vendor[])('events observe only: %s primary', (vendor) => {
  it.each(faultNames.flatMap((f) => [[f, false] as const, [f, true] as const]))('%s (stream: %s): same outcomes without any listener, no key in any event', async (fault, stream) => {
    const recorded = await run(vendor, fault, stream, 'recorded');
    const silenced = await run(vendor, fault, stream, 'silenced');
    expect(silenced.events).toBeUndefined();
    // What each caller got; and the first request's attempts (later ones depend on how far
    // virtual time moved while sockets were busy: a key's rest may or may not be over).
    expect(silenced.results).toEqual(recorded.results);
    expect(silenced.attempts[0]).toEqual(recorded.attempts[0]);
    expect(recorded.events!.length).toBeGreaterThan(0);
    for (const e of recorded.events!) for (const key of KEYS) expect(e.json, e.name).not.toContain(key);
  });
});
