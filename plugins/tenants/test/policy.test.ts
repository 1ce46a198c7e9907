/** What a key may do, checked before the call and settled after it, on a virtual clock. */
import { SERVICE, type TenantBudgetEvent } from '@switchyard/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { getService } from '@switchyard/core';
import { ask, refusal, rig, START, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const ledger = (r: Rig, groupBy: string) => getService(r.pipeline, SERVICE.usage)!.answer({ groupBy }) as Promise<{ groups: Record<string, { requests: number; costUsd: number }> }>;

describe('key policy', () => {
  it('refuses a model outside the allow-list before anything else runs; library callers get the same rules', async () => {
    current = await rig();
    const k = await current.key({ name: 'mini', models: ['gpt-4o*'] });
    const denied = await refusal(current.pipeline.chat(ask('chat'), { caller: k.caller }));
    expect(denied).toMatchObject({ code: 'SWITCHYARD_ERR_MODEL_NOT_ALLOWED', status: 403 });
    expect(denied.message).toBe(`gateway key ${k.id} (mini) may not use model "chat"; it may use: gpt-4o*`);
    expect(current.vendor.requests).toHaveLength(0);
    expect((await current.pipeline.chat(ask('gpt-4o-mini'), { caller: k.caller })).choices[0].message.content).toBe('ok');
  });

  it('limits requests a minute and tokens a minute, in UTC minute windows', async () => {
    current = await rig();
    const busy = await current.key({ name: 'busy', limits: { rpm: 2 } });
    await current.pipeline.chat(ask(), { caller: busy.caller });
    await current.pipeline.chat(ask(), { caller: busy.caller });
    const third = await refusal(current.pipeline.chat(ask(), { caller: busy.caller }));
    expect(third).toMatchObject({ code: 'SWITCHYARD_ERR_KEY_RATE_LIMIT', status: 429, retryAfterMs: 60_000 });
    expect(third.message).toBe(`rate limit of key ${busy.id} (busy): at most 2 requests a minute`);
    await current.clock.advance(60_000);
    expect((await current.pipeline.chat(ask(), { caller: busy.caller })).choices).toHaveLength(1);

    // A request holds its upper bound (13 input tokens at most, 10 of output) until it settles at
    // the 5 it used: of 30 a minute, two fit (5 + 23, then 10 + 23 does not); the next minute is new.
    const wordy = await current.key({ name: 'wordy', limits: { tpm: 30 } });
    await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: wordy.caller });
    await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: wordy.caller });
    expect((await refusal(current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: wordy.caller }))).message).toBe(`rate limit of key ${wordy.id} (wordy): at most 30 tokens a minute`);
    await current.clock.advance(60_000);
    expect((await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: wordy.caller })).choices).toHaveLength(1);
    expect(current.vendor.requests).toHaveLength(6);
    // Concurrent requests cannot all pass a limit nobody has used yet (before: every one went, 10 × 5 tokens on a limit of 30).
    const burst = await current.key({ name: 'burst', limits: { tpm: 30 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => current!.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: burst.caller }).then(() => 'ok', (e: { code: string }) => e.code)));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect((await current.admin('GET', `/switchyard/keys/${burst.id}/usage`)).body.limits.tpm).toMatchObject({ used: 5 });
  });

  it('reserves the estimate before the call and settles the real cost after it: the books agree with the ledger exactly', async () => {
    current = await rig({ teams: { t: { budget: { month: { limitUsd: 10 } } } } });
    const k = await current.key({ name: 'app', team: 't', budget: { day: { limitUsd: 1 } } });
    const usage = () => current!.admin('GET', `/switchyard/keys/${k.id}/usage`);
    for (let i = 0; i < 3; i++) await current.pipeline.chat(ask('chat', { max_tokens: 50 }), { caller: k.caller });
    const after = (await usage()).body;
    expect(after.spend.day).toMatchObject({ window: '2026-05-04', spentUsd: 0.015, limitUsd: 1, level: 'none', resetsAt: '2026-05-05T00:00:00.000Z' });
    expect(after.spend.month).toMatchObject({ window: '2026-05', spentUsd: 0.015, limitUsd: null });
    expect(after.team.spend.month).toMatchObject({ spentUsd: 0.015, limitUsd: 10 });
    expect((await ledger(current, 'gatewayKey')).groups[k.id]).toMatchObject({ requests: 3, costUsd: 0.015 });
    expect((await ledger(current, 'team')).groups.t).toMatchObject({ requests: 3, costUsd: 0.015 });
    // The next UTC day starts from nothing; the month goes on.
    await current.clock.advance(12 * 3_600_000);
    const nextDay = (await usage()).body;
    expect(nextDay.spend.day).toMatchObject({ window: '2026-05-05', spentUsd: 0 });
    expect(nextDay.spend.month.spentUsd).toBe(0.015);
  });

  it('lets 32 concurrent requests racing the last of a budget spend no more than it', async () => {
    current = await rig();
    // Each request reserves up to $0.023 (an input bound of 13 tokens, 10 of output) and costs $0.005.
    const k = await current.key({ name: 'racer', budget: { day: { limitUsd: 0.1 } } });
    const results = await Promise.all(Array.from({ length: 32 }, () => current!.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: k.caller }).then(() => 'ok', (e: { code: string }) => e.code)));
    const served = results.filter((r) => r === 'ok').length;
    expect(served).toBe(4);
    expect(new Set(results.filter((r) => r !== 'ok'))).toEqual(new Set(['SWITCHYARD_ERR_KEY_BUDGET']));
    const spent = (await current.admin('GET', `/switchyard/keys/${k.id}/usage`)).body.spend.day.spentUsd;
    expect(spent).toBe(served * 0.005);
    // Later requests use what the first ones did not spend of their reservations.
    for (let i = 0; i < 20; i++) await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: k.caller }).catch(() => undefined);
    const total = (await current.admin('GET', `/switchyard/keys/${k.id}/usage`)).body.spend.day.spentUsd;
    expect(total).toBeLessThanOrEqual(0.1);
    expect(total).toBeGreaterThan(0.1 - 0.023);
  });

  it("rolls a team's keys up into the team's budget, and refuses the request that would pass it", async () => {
    current = await rig({ teams: { t: { budget: { day: { limitUsd: 0.03 } } } } });
    const a = await current.key({ name: 'a', team: 't' });
    const b = await current.key({ name: 'b', team: 't' });
    await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: a.caller });
    await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: b.caller });
    const over = await refusal(current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: a.caller }));
    expect(over).toMatchObject({ code: 'SWITCHYARD_ERR_KEY_BUDGET', status: 429, retryAfterMs: 12 * 3_600_000 });
    expect(over.message).toBe('budget exhausted: the day budget of team t for 2026-05-04: $0.0100 spent or reserved of $0.0300; this request may cost up to $0.0230; it resets at 2026-05-05T00:00:00.000Z');
    // Nothing was reserved for the refused request: the books still say $0.01.
    expect((await current.admin('GET', '/switchyard/teams/t')).body).toMatchObject({ name: 't', source: 'config', spend: { day: { spentUsd: 0.01, limitUsd: 0.03 } } });
    // A key without a team is not affected.
    const solo = await current.key({ name: 'solo' });
    expect((await current.pipeline.chat(ask('chat', { max_tokens: 10 }), { caller: solo.caller })).choices).toHaveLength(1);
    expect((await current.admin('GET', '/switchyard/teams')).body.teams.map((t: { name: string }) => t.name)).toEqual(['t']);
  });

  it('announces the soft and hard thresholds of a budget once each, and the return below them', async () => {
    // A vendor that answers past max_tokens (15 tokens, $0.015, for a reservation of $0.014):
    // the only way settled spend reaches a hard limit when every reservation is an upper bound.
    current = await rig({}, { usage: { prompt_tokens: 3, completion_tokens: 12 } });
    const events: string[] = [];
    current.pipeline.events.on('tenant:budget', (e: TenantBudgetEvent) => events.push(`${e.scope}:${e.name}:${e.period}:${e.window}:${e.level}:${e.spentUsd}`));
    // $0.015 a request against $0.03 a day: soft (50 %) at the 1st request, hard (100 %) at the 2nd.
    const k = await current.key({ name: 'alerting', budget: { day: { limitUsd: 0.03, soft: 0.5 } } });
    for (let i = 0; i < 2; i++) await current.pipeline.chat(ask('chat', { max_tokens: 1 }), { caller: k.caller });
    expect(events).toEqual(['key:alerting:day:2026-05-04:soft:0.015', 'key:alerting:day:2026-05-04:hard:0.03']);
    expect(await refusal(current.pipeline.chat(ask('chat', { max_tokens: 1 }), { caller: k.caller }))).toMatchObject({ code: 'SWITCHYARD_ERR_KEY_BUDGET' });
    // Raised through the admin API: the incident resolves.
    await current.admin('PATCH', `/switchyard/keys/${k.id}`, { budget: { day: { limitUsd: 1 } } });
    await expect.poll(() => events.length).toBe(3);
    expect(events[2]).toBe('key:alerting:day:2026-05-04:none:0.03');
  });

  it('a new window resolves the last one: the level is remembered in the store for every gateway', async () => {
    // $0.015 an answer (past its max_tokens) for a reservation of $0.014: one answer reaches the limit.
    current = await rig({}, { usage: { prompt_tokens: 3, completion_tokens: 12 } });
    const events: string[] = [];
    current.pipeline.events.on('tenant:budget', (e: TenantBudgetEvent) => events.push(`${e.window}:${e.level}`));
    const k = await current.key({ name: 'daily', budget: { day: { limitUsd: 0.015 } } });
    await current.pipeline.chat(ask('chat', { max_tokens: 1 }), { caller: k.caller });
    expect(events).toEqual(['2026-05-04:hard']);
    await current.clock.advance(12 * 3_600_000);
    await current.pipeline.chat(ask('chat', { max_tokens: 1 }), { caller: k.caller });
    // The new day's first answer resolves yesterday's incident, then reaches its own limit.
    expect(events).toEqual(['2026-05-04:hard', '2026-05-05:none', '2026-05-05:hard']);
  });

  it("folds the key's tags and tier into the request: the key's tags win over the caller's", async () => {
    current = await rig();
    const ends: { tier?: string }[] = [];
    current.pipeline.events.on('request:end', (e) => ends.push({ tier: e.tier }));
    const k = await current.key({ name: 'tagged', tags: { team: 'search' }, tier: 'gold' });
    await current.pipeline.chat({ ...ask(), switchyard: { tags: { team: 'other', feature: 'autocomplete' } } }, { caller: k.caller });
    const tags = (await ledger(current, 'tag')).groups;
    expect(Object.keys(tags).sort()).toEqual(['feature=autocomplete', 'team=search']);
    expect(ends).toEqual([{ tier: 'gold' }]);
    await current.pipeline.chat({ ...ask(), switchyard: { tier: 'bronze' } }, { caller: k.caller });
    expect(ends[1]).toEqual({ tier: 'bronze' });
  });

  it('never replays one caller\'s idempotent answer to another', async () => {
    current = await rig();
    const a = await current.key({ name: 'a' });
    const b = await current.key({ name: 'b' });
    await current.pipeline.chat(ask(), { caller: a.caller, idempotencyKey: 'same' });
    await current.pipeline.chat(ask(), { caller: a.caller, idempotencyKey: 'same' });
    expect(current.vendor.requests).toHaveLength(1);
    await current.pipeline.chat(ask(), { caller: b.caller, idempotencyKey: 'same' });
    expect(current.vendor.requests).toHaveLength(2);
  });

  it('keeps a key created concurrently with others and revoked at once whole: every listed key is a complete record', async () => {
    current = await rig();
    const r = current;
    const made = await Promise.all(Array.from({ length: 20 }, (_v, i) => r.admin('POST', '/switchyard/keys', { name: `k${i}`, team: 'x' })));
    await Promise.all(made.flatMap((m, i) => [r.admin('POST', `/switchyard/keys/${m.body.key.id}/revoke`, {}), r.admin('PATCH', `/switchyard/keys/${m.body.key.id}`, { owner: `owner-${i}` })]));
    const listed = (await r.admin('GET', '/switchyard/keys')).body.keys;
    expect(listed).toHaveLength(20);
    for (const [i, key] of listed.entries()) expect(key).toMatchObject({ name: `k${i}`, team: 'x', owner: `owner-${i}`, status: 'revoked', createdAt: new Date(START).toISOString() });
  });
});
