/**
 * Core owns mechanisms, each package its words: core's event map holds only the events core
 * emits, and no package reads a `ctx.state` field another package writes (they hand things
 * over with typed request slots instead).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sources } from './support/repo-sources.js';

describe('who owns which words', () => {
  it('core declares only the events core emits', () => {
    const map = readFileSync(path.join(ROOT, 'packages/core/src/events.ts'), 'utf8').split('export interface SwitchyardEvents {')[1].split('\n}')[0];
    const declared = [...map.matchAll(/^\s+'?([a-z:-]+)'?: \[/gm)].map((m) => m[1]);
    expect(declared.length).toBeGreaterThan(10);
    const coreText = sources(path.join(ROOT, 'packages/core/src')).map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(declared.filter((name) => !coreText.includes(`emit('${name}'`))).toEqual([]);
  });

  it('no package reads a ctx.state field another package writes', () => {
    const owners = new Map<string, Set<string>>();
    for (const top of ['packages', 'plugins']) {
      for (const pkg of readdirSync(path.join(ROOT, top))) {
        const src = path.join(ROOT, top, pkg, 'src');
        try {
          statSync(src);
        } catch {
          continue;
        }
        for (const file of sources(src)) {
          for (const m of readFileSync(file, 'utf8').matchAll(/ctx\.state\.([A-Za-z_$][\w$]*)/g)) {
            if (!owners.has(m[1])) owners.set(m[1], new Set());
            owners.get(m[1])!.add(`${top}/${pkg}`);
          }
        }
      }
    }
    expect(owners.size).toBeGreaterThan(0);
    expect([...owners].filter(([, pkgs]) => pkgs.size > 1).map(([field, pkgs]) => `${field}: ${[...pkgs].join(', ')}`)).toEqual([]);
  });
});
