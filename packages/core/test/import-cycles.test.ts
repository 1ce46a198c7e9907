/**
 * No import cycle in core, type-only imports included: a cycle hides an order dependency (a
 * value read before its module ran) and makes the files impossible to read one at a time.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, type Dependency, type DependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** dpdm reads import declarations; an inline type `import('./x.js').T` is an edge too. */
function addInlineTypeImports(tree: DependencyTree): void {
  for (const [file, deps] of Object.entries(tree)) {
    if (!deps || !file.endsWith('.ts') || file.includes('node_modules')) continue;
    for (const match of readFileSync(path.join(src, file), 'utf8').matchAll(/\bimport\(\s*['"](\.\/[^'"]+)\.js['"]\s*\)/g)) {
      (deps as Dependency[]).push({ issuer: file, request: match[1], kind: 'DynamicImport' as Dependency['kind'], id: `${match[1].slice(2)}.ts` });
    }
  }
}

describe('core imports', () => {
  it('form no cycle, counting type-only imports', async () => {
    const tree = await parseDependencyTree('*.ts', { cwd: src, context: src, transform: false, skipDynamicImports: false, exclude: /node_modules|\.test\.ts$/ });
    addInlineTypeImports(tree);
    // The walk really read core, and resolved its `./x.js` imports to the `.ts` sources.
    expect(Object.keys(tree).length).toBeGreaterThan(50);
    expect(tree['pipeline.ts']?.map((d) => d.id)).toContain('request-run.ts');
    expect(tree['types.ts']?.map((d) => d.id)).toContain('errors.ts');
    const cycles = parseCircular(tree).map((cycle) => cycle.join(' -> '));
    expect(cycles).toEqual([]);
  });
});
