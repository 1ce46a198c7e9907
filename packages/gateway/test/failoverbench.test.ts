/**
 * failoverbench v0.1 (S01–S16) against the gateway at the defaults, on the full and the
 * shortened timing profile. Scenario definitions: failoverbench/scenarios.ts.
 */
import { describe, expect, it } from 'vitest';
import { runProfile, scorecard, type ProfileName } from './failoverbench/runner.js';

const IDS = ['S01', 'S02', 'S03', 'S04', 'S05', 'S06', 'S07', 'S08', 'S09', 'S10', 'S11', 'S12', 'S13', 'S14', 'S15', 'S16'];
// Today (before recovery and default continuation): 12 pass, 3 safe (S08, S09, S14), S15 fails.
// Before recovery and default continuation: 12 pass, 3 safe (S08, S09, S14), S15 failed on both profiles.
// Target: 15 pass and S14 safe (its fallback rejects a prefill, so a clean error is the best answer).
const EXPECTED: Record<string, string> = Object.fromEntries(IDS.map((id) => [id, id === 'S14' ? 'safe' : 'pass']));

describe.each<ProfileName>(['full', 'shortened'])('failoverbench at the defaults, %s profile', (profile) => {
  it('scores 15 pass and S14 safe', { timeout: 60_000 }, async () => {
    const results = await runProfile(profile);
    console.log(scorecard(profile, results));
    for (const r of results) if (r.verdict !== EXPECTED[r.id]) console.log(r.id, r.reason, JSON.stringify(r.checks), '\n  ' + r.wall.join('\n  '));
    expect(Object.fromEntries(results.map((r) => [r.id, r.verdict]))).toEqual(EXPECTED);
  });
});
