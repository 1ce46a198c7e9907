import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'tsup';

// One build entry per subpath of package.json's exports: a new subpath is one exports entry.
const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { exports: Record<string, string | { '@switchyard/source'?: string; import?: string }> };
const entry = Object.fromEntries(
  Object.values(manifest.exports)
    .filter((target): target is { '@switchyard/source': string; import: string } => typeof target === 'object' && typeof target['@switchyard/source'] === 'string')
    .map((target) => [path.basename(target.import, '.js'), target['@switchyard/source']]),
);

export default defineConfig({ entry, format: ['esm'], dts: true, clean: true, sourcemap: true, target: 'node20' });
