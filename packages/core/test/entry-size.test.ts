/**
 * The core entry is sized for plugin authors: what a plugin, provider or pipeline author uses.
 * New names go to a subpath (package.json exports: config, wire, internal, …), or raise the
 * cap here with the reason in the commit.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const CORE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_ENTRY_NAMES = 130;

const manifest = JSON.parse(readFileSync(path.join(CORE, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
const subpaths = Object.entries(manifest.exports).filter((e): e is [string, Record<string, string>] => typeof e[1] === 'object');

function exportedNames(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  return new Map(files.map((f) => [f, checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(f)!)!).map((s) => s.name)]));
}

describe("core's entry points", () => {
  const sources = subpaths.map(([, target]) => path.join(CORE, target['@switchyard/source']));
  const names = exportedNames(sources);

  it(`exports at most ${MAX_ENTRY_NAMES} names from @switchyard/core`, () => {
    const main = names.get(path.join(CORE, 'src/index.ts'))!;
    expect(main.length).toBeGreaterThan(80);
    expect(main.length).toBeLessThanOrEqual(MAX_ENTRY_NAMES);
    // What a plugin author needs is there.
    for (const name of ['createPipeline', 'definePlugin', 'defineProvider', 'defineErrorCodes', 'defineHooks', 'defineService', 'defineRequestSlot', 'tapEveryCall', 'SwitchyardError', 'STAGE', 'SwitchyardEvents', 'VirtualClock']) expect(main).toContain(name);
  });

  it('has a source, a build output and types for every subpath, and no name in two entries', () => {
    expect(subpaths.map(([p]) => p)).toEqual(expect.arrayContaining(['.', './config', './wire', './internal']));
    const seen = new Map<string, string>();
    for (const [subpath, target] of subpaths) {
      expect(existsSync(path.join(CORE, target['@switchyard/source'])), subpath).toBe(true);
      expect(target.types).toBe(target.import.replace(/\.js$/, '.d.ts'));
      for (const name of names.get(path.join(CORE, target['@switchyard/source']))!) {
        expect(seen.get(name), `${name} in ${subpath}`).toBeUndefined();
        seen.set(name, subpath);
      }
    }
  });
});
