import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

// The demo lives in src/demo/ (owned by the demo work); it is bundled when present and loaded
// lazily by `switchyard demo`.
const entry = ['src/index.ts', 'src/bin.ts', ...(existsSync('src/demo/index.ts') ? ['src/demo/index.ts'] : [])];

export default defineConfig({ entry, format: ['esm'], dts: true, clean: true, sourcemap: true, target: 'node20' });
