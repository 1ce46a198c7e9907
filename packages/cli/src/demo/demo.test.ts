import { describe, expect, it } from 'vitest';
import { runDemo } from './index.js';
import { SCENES } from './scenes.js';

const pick = (...titles: string[]) => SCENES.filter((s) => titles.includes(s.title));

describe('the demo tells the truth', () => {
  it('fails over, continues cut streams, opens the breaker and degrades, with what the vendors saw', async () => {
    let text = '';
    await runDemo({ out: { write: (t: string) => (text += t) }, scenes: pick('healthy', 'primary 503', 'primary cuts the stream mid-answer', 'primary down (breaker)', 'every vendor down') });
    const rows = text.split('\n');
    const row = (title: string) => rows.find((r) => r.startsWith(title)) ?? '';
    expect(row('healthy')).toMatch(/openai \(gpt-4o-mini\)\s+1\s+1 .*complete answer/);
    expect(row('primary 503')).toMatch(/anthropic \(claude-sonnet-4-5\).*complete answer/);
    expect(row('primary cuts the stream')).toMatch(/openai → anthropic \(continued\).*complete stream/);
    // 12 requests with the primary down: after the breaker opens, the primary sees nothing.
    const breakerRows = rows.slice(rows.indexOf(row('primary down (breaker)')), rows.indexOf(row('every vendor down')));
    const primaryHits = breakerRows.map((r) => Number(r.split(/\s{2,}/)[4] ?? 0)).reduce((a, b) => a + b, 0);
    expect(breakerRows).toHaveLength(12);
    expect(primaryHits).toBeLessThanOrEqual(4);
    expect(row('every vendor down')).toMatch(/degraded: canned.*labelled degraded answer/);
    expect(text).toMatch(/breaker opened on openai\/gpt-4o-mini/);
    expect(text).not.toMatch(/truncated|incomplete/);
  });
});
