/**
 * The shape of core's sources: no file over 400 lines, and no implementation file in an import
 * cycle. Type-only imports of contract.ts (the mutually recursive contract types, erased at
 * runtime) are the one kind of edge left out of the graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src');
const TYPES_ONLY = new Set(['contract.ts']);

const files = readdirSync(SRC).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
const source = new Map(files.map((f) => [f, readFileSync(path.join(SRC, f), 'utf8')]));

function localImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\(\s*)'\.\/([\w.-]+)\.js'/g)) out.push(`${m[1]}.ts`);
  return out;
}

function cycles(): string[][] {
  const graph = new Map(files.map((f) => [f, localImports(source.get(f)!).filter((to) => !TYPES_ONLY.has(to))]));
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const to of graph.get(file) ?? []) {
      if (state.get(to) === 'open') found.push([...stack.slice(stack.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

describe('core source layout', () => {
  it('has no file over 400 lines', () => {
    const long = files.map((f) => [f, source.get(f)!.split('\n').length] as const).filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });

  it('keeps contract.ts types-only', () => {
    const text = source.get('contract.ts')!;
    const statements = text.split('\n').filter((line) => /^(import|export)\s/.test(line));
    expect(statements.length).toBeGreaterThan(10);
    expect(statements.filter((line) => !/^(import type|export (type|interface))\s/.test(line))).toEqual([]);
  });

  it('has no import cycle among implementation files', () => {
    expect(cycles()).toEqual([]);
  });
});
