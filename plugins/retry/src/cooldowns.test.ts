import { describe, expect, it } from 'vitest';
import { MemoryStateStore, VirtualClock } from '@switchyard/core';
import { candidatesForDeployment } from '@switchyard/core/internal';
import { Cooldowns, keyScope, scopesOf } from './cooldowns.js';

const single = candidatesForDeployment({ name: 'a', provider: 'test', apiKey: 'k' }, { endpoint: 'a', model: 'x' })[0];
const [key0, key1] = candidatesForDeployment({ name: 'b', provider: 'test', apiKeys: ['k0', 'k1'] }, { endpoint: 'b', model: 'y' });

describe('Cooldowns', () => {
  it('a cooldown lasts exactly as long as asked on the injected clock', async () => {
    const clock = new VirtualClock(0);
    const cooldowns = new Cooldowns(new MemoryStateStore(clock), clock);
    await cooldowns.set('a/x', 2000, 'rate-limited');
    await clock.advance(1999);
    expect(await cooldowns.of(single)).toEqual({ until: 2000, reason: 'rate-limited' });
    await clock.advance(1);
    expect(await cooldowns.of(single)).toBeUndefined();
  });

  it('never shrinks an existing longer cooldown', async () => {
    const clock = new VirtualClock(0);
    const cooldowns = new Cooldowns(new MemoryStateStore(clock), clock);
    await cooldowns.set('a/x', 30_000, 'long');
    await cooldowns.set('a/x', 1000, 'short');
    await clock.advance(5000);
    expect((await cooldowns.get('a/x'))?.reason).toBe('long');
    await cooldowns.set('a/x', 60_000, 'longer');
    expect(await cooldowns.get('a/x')).toEqual({ until: 65_000, reason: 'longer' });
  });

  it('scopes: per key on multi-key endpoints, per deployment, per API key', async () => {
    expect(scopesOf(single)).toEqual(['a/x', 'key:a#0']);
    expect(scopesOf(key1)).toEqual(['b/y#1', 'b/y', 'key:b#1']);
    const clock = new VirtualClock(0);
    const cooldowns = new Cooldowns(new MemoryStateStore(clock), clock);
    await cooldowns.set(key0.id, 1000, 'rate-limited');
    expect(await cooldowns.of(key0)).toBeDefined();
    expect(await cooldowns.of(key1)).toBeUndefined();
    await cooldowns.set(keyScope(key1), 1000, 'key-failure');
    expect((await cooldowns.of(key1))?.reason).toBe('key-failure');
    await cooldowns.set('b/y', 5000, 'misconfigured');
    expect((await cooldowns.of(key0))?.reason).toBe('misconfigured');
  });
});
