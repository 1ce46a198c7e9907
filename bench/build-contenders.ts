/**
 * Builds bench/gateway-servers.ts the way the packages ship: esbuild (what tsup runs) bundles
 * the workspace packages' sources into one ESM file, and every npm dependency stays an import
 * of the installed package. The contenders then run on plain Node, as `switchyard serve` does
 * from the published dist: no tsx loader, no esbuild `keepNames` wrappers, no compile-on-import
 * worker thread (which alone held ~40 MB of RSS). BENCH_TSX=1 runs the sources under tsx instead.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** Bare imports of npm packages resolve to their installed files and stay imports (like tsup's externals). */
const npmExternal: Plugin = {
  name: 'npm-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@switchyard/') || args.path.startsWith('node:') || args.pluginData === 'resolving') return undefined;
      const resolved = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'resolving' });
      if (resolved.errors.length > 0 || !resolved.path) return { path: args.path, external: true };
      return { path: resolved.path, external: true };
    });
  },
};

/** Writes bench/.build/<name>.mjs from an entry file (absolute, or relative to bench/) and returns its path. */
export async function buildBenchEntry(entry: string, name: string): Promise<string> {
  const dir = fileURLToPath(new URL('./.build/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const outfile = `${dir}${name}.mjs`;
  await build({
    entryPoints: [entry.startsWith('/') ? entry : fileURLToPath(new URL(entry, import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@switchyard/source'],
    plugins: [npmExternal],
    logLevel: 'warning',
  });
  return outfile;
}
