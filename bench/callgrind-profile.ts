/**
 * Where a contender's instructions go, by JavaScript function and by source file, read from a
 * callgrind dump of a node process run with `--perf-basic-prof` (V8 writes the address range of
 * each piece of code it generates to /tmp/perf-<pid>.map; callgrind knows JIT code by address only).
 *
 * A function is charged its own instructions and those of the engine code it calls (builtins,
 * the runtime, the collector, libc) down to the next JavaScript function, which is charged its
 * own: `JSON.parse` counts for the function that called it, a callback for itself. Where an engine
 * function is called from several places, its cost (and what it calls) is shared out in
 * proportion to each caller's calls into it. Functions V8 inlined are charged to the function they
 * were inlined into, as in any profile of optimized code.
 *
 * Source files come from esbuild's `// path` comments in the bundle a function's code came from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ProfileRow {
  name: string;
  /** Instructions per request. */
  instructions: number;
}

export interface InstructionProfile {
  byFile: ProfileRow[];
  byFunction: ProfileRow[];
}

interface CodeRange {
  start: number;
  size: number;
  name: string;
}

function readPerfMap(file: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (match) ranges.push({ start: parseInt(match[1]!, 16), size: parseInt(match[2]!, 16), name: match[3]! });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

function codeAt(ranges: readonly CodeRange[], address: number): string | undefined {
  let low = 0;
  let high = ranges.length - 1;
  let best: CodeRange | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ranges[middle]!.start <= address) {
      best = ranges[middle];
      low = middle + 1;
    } else high = middle - 1;
  }
  return best && address < best.start + best.size ? best.name : undefined;
}

/** Self costs and call edges (caller → callee → inclusive cost of those calls) of one callgrind dump. */
function readDump(file: string, nameOf: (raw: string) => string): { self: Map<string, number>; calls: Map<string, Map<string, number>> } {
  const names = new Map<string, string>();
  const self = new Map<string, number>();
  const calls = new Map<string, Map<string, number>>();
  let caller = '';
  let callee = '';
  let callCost = false;
  // Names are compressed: `fn=(12) name` the first time, `fn=(12)` after.
  const named = (id: string, raw: string | undefined) => {
    if (raw !== undefined) names.set(id, nameOf(raw));
    return names.get(id) ?? '?';
  };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let match: RegExpExecArray | null;
    if ((match = /^fn=\((\d+)\)(?: (.*))?$/.exec(line))) caller = named(match[1]!, match[2]);
    else if ((match = /^cfn=\((\d+)\)(?: (.*))?$/.exec(line))) callee = named(match[1]!, match[2]);
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[+*-]?\d/.test(line)) {
      const cost = Number(line.trim().split(/\s+/)[1] ?? 0);
      if (!callCost) self.set(caller, (self.get(caller) ?? 0) + cost);
      else if (callee !== caller) {
        let edges = calls.get(caller);
        if (!edges) calls.set(caller, (edges = new Map()));
        edges.set(callee, (edges.get(callee) ?? 0) + cost);
      }
      callCost = false;
    }
  }
  return { self, calls };
}

const isJavaScript = (name: string) => name.startsWith('JS:');

/** A function's name with its file's path cut to what tells it apart: the bundle's file name, or the package and its path within. */
function shortName(name: string): string {
  return name.replace(/(?:file:\/\/)?\/\S*\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/file:\/\/\S*\/(\S+\.m?js)/, '$1');
}

/** The source file of each line of a bundle, from esbuild's `// path` comments. */
function sourceFiles(bundle: string): string[] {
  const files: string[] = [];
  let current = '(bundle)';
  readFileSync(bundle, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const match = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
      if (match) current = match[1]!;
      files[index + 1] = current;
    });
  return files;
}

export function instructionProfile(dumpFile: string, pid: number, requests: number): InstructionProfile | undefined {
  const mapFile = `/tmp/perf-${pid}.map`;
  if (!existsSync(mapFile)) return undefined;
  const ranges = readPerfMap(mapFile);
  // `JS:*name url:line:col` (the tier mark dropped, so one function is one row); engine code keeps its symbol.
  const nameOf = (raw: string) => {
    const address = /^0x([0-9a-f]+)/.exec(raw);
    const name = address ? (codeAt(ranges, parseInt(address[1]!, 16)) ?? 'JIT code (unnamed)') : raw;
    return name.replace(/^JS:[*^~+]?/, 'JS:').replace(/'[^']*$/, '');
  };
  const { self, calls } = readDump(dumpFile, nameOf);
  const functions = new Set([...self.keys(), ...calls.keys()]);
  const inclusive = new Map<string, number>();
  for (const name of functions) {
    let total = self.get(name) ?? 0;
    for (const cost of calls.get(name)?.values() ?? []) total += cost;
    inclusive.set(name, total);
  }
  // The share of an engine function's inclusive cost that is engine work (not JavaScript it called back), to a fixed point.
  let engineShare = new Map<string, number>();
  const engineCostOf = (name: string, share: Map<string, number>) => {
    let cost = self.get(name) ?? 0;
    for (const [callee, calleeCost] of calls.get(name) ?? []) if (!isJavaScript(callee)) cost += calleeCost * (share.get(callee) ?? 1);
    return cost;
  };
  for (let round = 0; round < 30; round++) {
    const next = new Map<string, number>();
    for (const name of functions) if (!isJavaScript(name)) next.set(name, Math.min(1, engineCostOf(name, engineShare) / (inclusive.get(name) || 1)));
    engineShare = next;
  }
  const byFunction = new Map<string, number>();
  for (const name of functions) if (isJavaScript(name)) byFunction.set(name, engineCostOf(name, engineShare));

  const bundles = new Map<string, string[]>();
  const fileOf = (name: string): string => {
    const module = / (file:\/\/\S+\.m?js):(\d+):\d+$/.exec(name);
    if (module) {
      const bundle = fileURLToPath(module[1]!);
      if (!bundles.has(bundle)) bundles.set(bundle, existsSync(bundle) ? sourceFiles(bundle) : []);
      const source = bundles.get(bundle)![Number(module[2])] ?? '(bundle)';
      // A package of the production bundle's node_modules: its sources are named from its own root.
      const installed = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(bundle);
      return installed ? `${installed[1]} ${source}` : source;
    }
    const dependency = /node_modules\/\.pnpm\/([^/]+)\//.exec(name) ?? /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(name);
    if (dependency) return `dependency ${dependency[1]}`;
    return / (node:\S+?):\d+:\d+$/.exec(name)?.[1] ?? 'other JavaScript';
  };
  const byFile = new Map<string, number>();
  for (const [name, cost] of byFunction) {
    const file = fileOf(name);
    byFile.set(file, (byFile.get(file) ?? 0) + cost);
  }
  const rows = (costs: Map<string, number>) =>
    [...costs]
      .map(([name, cost]) => ({ name: shortName(name), instructions: cost / requests }))
      .sort((a, b) => b.instructions - a.instructions);
  return { byFile: rows(byFile), byFunction: rows(byFunction) };
}
