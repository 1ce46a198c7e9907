/** The key check: what it answers, what it reads, how long it trusts what it read. */
import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchyardError, VirtualClock } from '@switchyard/core';
import { CountingStore, rig, START, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function counted(options = {}) {
  const clock = new VirtualClock(START);
  const store = new CountingStore(clock);
  current = await rig(options, { store, clock });
  return { ...current, store };
}

describe('the key check', () => {
  it('reads a key once per cache period and answers from memory in between, whatever was presented', async () => {
    const r = await counted({ cacheTtlMs: 1_000 });
    const created = await r.admin('POST', '/switchyard/keys', { name: 'app', team: 'a', tags: { project: 'x' }, tier: 'gold' });
    const secret: string = created.body.secret;
    const [id, part] = secret.slice(3).split('.');
    const reads = r.store.keyReads;

    // The first check after a write reads the record; the next ones answer at once.
    const first = r.authenticate(secret);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual({ keyId: id, keyName: 'app', team: 'a', tags: { project: 'x' }, tier: 'gold' });
    expect(r.store.keyReads).toBe(reads + 1);
    expect(r.authenticate(secret)).toMatchObject({ keyId: id });
    expect(r.authenticate(`sy-${id}.${'A'.repeat(43)}`)).toBeUndefined();
    expect(r.store.keyReads).toBe(reads + 1);

    // An unknown id and a malformed key cost one read each, then nothing: same answer, same path.
    const unknown = `sy-key_0000000000000000.${part}`;
    expect(await r.authenticate(unknown)).toBeUndefined();
    expect(await r.authenticate('not-a-key-at-all')).toBeUndefined();
    expect(r.store.keyReads).toBe(reads + 3);
    expect(r.authenticate(unknown)).toBeUndefined();
    expect(r.authenticate('something-else')).toBeUndefined();
    expect(r.store.keyReads).toBe(reads + 3);

    // After the cache period, one read again.
    await r.clock.advance(1_000);
    const again = r.authenticate(secret);
    expect(again).toBeInstanceOf(Promise);
    expect(await again).toMatchObject({ keyId: id });
    expect(r.store.keyReads).toBe(reads + 4);
  });

  it('sees a change another gateway made without pub/sub within the cache period, and its own at once', async () => {
    const r = await counted({ cacheTtlMs: 1_000 });
    const k = await r.key({ name: 'app' });
    const record = await r.store.get<Record<string, unknown>>(`switchyard:tenants:key:${k.id}`);
    // Another gateway revokes it in the shared store, and no message reaches this one.
    await r.store.set(`switchyard:tenants:key:${k.id}`, { ...record, revokedAt: new Date(START).toISOString() });
    expect(r.authenticate(k.secret)).toMatchObject({ keyId: k.id });
    await r.clock.advance(999);
    expect(r.authenticate(k.secret)).toMatchObject({ keyId: k.id });
    await r.clock.advance(1);
    expect(await r.authenticate(k.secret)).toBeUndefined();

    const other = await r.key({ name: 'other' });
    expect(r.authenticate(other.secret)).toMatchObject({ keyId: other.id });
    await r.admin('POST', `/switchyard/keys/${other.id}/revoke`, {});
    expect(await r.authenticate(other.secret)).toBeUndefined();
  });

  it('keeps the keys it read while a shared store is down, and refuses writes that would be lost', async () => {
    const clock = new VirtualClock(START);
    const store = Object.assign(new CountingStore(clock), { available: true });
    current = await rig({ cacheTtlMs: 1_000 }, { store, clock });
    const k = await current.key({ name: 'app' });
    store.available = false;
    await current.clock.advance(60_000);
    // No read while the store is down: the key that worked keeps working.
    const reads = store.keyReads;
    expect(current.authenticate(k.secret)).toMatchObject({ keyId: k.id });
    expect((await current.pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { caller: k.caller })).choices).toHaveLength(1);
    expect(store.keyReads).toBe(reads);
    await expect(current.admin('POST', '/switchyard/keys', { name: 'new' })).rejects.toMatchObject({ kind: 'overloaded', status: 503, message: expect.stringContaining('would be lost') });
    await expect(current.admin('POST', `/switchyard/keys/${k.id}/revoke`, {})).rejects.toMatchObject({ status: 503 });
    store.available = true;
    expect(current.authenticate(k.secret)).toBeInstanceOf(Promise);
  });

  it('tells only the holder of the secret that a key expired, naming when', async () => {
    current = await rig();
    const k = await current.key({ name: 'short-lived', expiresAt: new Date(START + 60_000).toISOString() });
    await current.clock.advance(60_000);
    const refused = await current.authenticate(k.secret);
    expect(isSwitchyardError(refused)).toBe(true);
    expect(refused).toMatchObject({ code: 'SWITCHYARD_ERR_KEY_EXPIRED', status: 401 });
    expect((refused as Error).message).toContain(`expired at ${new Date(START + 60_000).toISOString()}`);
    expect(await current.authenticate(`${k.secret.slice(0, -3)}AAA`)).toBeUndefined();
    expect((await current.admin('GET', `/switchyard/keys/${k.id}`)).body.status).toBe('expired');
  });

  it("keeps a rotated key's old secret working for the grace period only", async () => {
    current = await rig();
    const k = await current.key({ name: 'rotating' });
    const rotated = await current.admin('POST', `/switchyard/keys/${k.id}/rotate`, { graceSeconds: 60 });
    expect(await current.authenticate(rotated.body.secret)).toMatchObject({ keyId: k.id });
    expect(await current.authenticate(k.secret)).toMatchObject({ keyId: k.id });
    await current.clock.advance(60_000);
    expect(await current.authenticate(k.secret)).toBeUndefined();
    expect(await current.authenticate(rotated.body.secret)).toMatchObject({ keyId: k.id });
    expect((await current.admin('POST', `/switchyard/keys/${k.id}/revoke`, {})).body.status).toBe('revoked');
    await expect(current.admin('POST', `/switchyard/keys/${k.id}/rotate`, {})).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_KEY_CONFLICT', message: expect.stringContaining('is revoked') });
  });

  it('authenticates keys declared in the config, compared in constant time, never stored', async () => {
    const r = await counted({ keys: [{ id: 'ci', name: 'ci-runner', team: 'platform', secret: 'declared-secret-0123456789', models: ['chat'] }] });
    const reads = r.store.keyReads;
    // A declared key is answered at once, from the config alone: the store is not asked.
    expect(r.authenticate('declared-secret-0123456789')).toEqual({ keyId: 'ci', keyName: 'ci-runner', team: 'platform' });
    expect(r.store.keyReads).toBe(reads);
    // A key that matches none takes the store's steps, as any wrong key does.
    expect(await r.authenticate('declared-secret-012345678')).toBeUndefined();
    expect(r.store.keyReads).toBe(reads + 1);
    expect(JSON.stringify(r.store.snapshot())).not.toContain('declared-secret');
    await expect(r.admin('POST', '/switchyard/keys/ci/revoke', {})).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_KEY_CONFLICT' });
  });

  it('refuses bad options with a coded error naming the field', async () => {
    await expect(rig({ keys: [{ id: 'a', name: 'a', secret: 'short' }] })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', message: expect.stringContaining('keys.0.secret') });
    await expect(rig({ teams: { t: { budget: { month: { limitUsd: -1 } } } } })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', message: expect.stringContaining('limitUsd') });
  });
});
