/**
 * The top frames of a V8 CPU profile (`--cpu-prof`, `BENCH_PROFILE=dir pnpm bench:gateway`):
 * self time per function (name, file, line), and per package (node's own code, each npm
 * package, each Switchyard package), as shares of the busy samples.
 * and, with a third argument, inclusive time per function (its own and its callees', once per
 * stack), which shows what a stage of the request path costs as a whole.
 * Run: node --import tsx bench/profile-top.ts <file.cpuprofile> [count] [inclusive count]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, count = '25', inclusiveCount = '0'] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-top.ts <file.cpuprofile> [count]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
const hits = new Map<number, number>();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const self = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
/** `@switchyard/core`, `undici`, `node:http`, `(native)`… for a frame's URL. */
function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(url);
  if (pkg) return pkg[1]!;
  const workspace = /\/(packages|plugins)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/')[0]!;
  return url.replace(/^.*\//, '');
}
for (const node of profile.nodes) {
  const n = hits.get(node.id) ?? 0;
  if (n === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules\/|packages\/|plugins\/|bench\/)/, '$1')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + n);
  const pkg = packageOf(url, functionName);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + n);
  total += n;
}
const idle = ['(idle)', '(program)', '(garbage collector)'].map((name) => [name, self.get(name) ?? 0] as const);
const busy = total - (self.get('(idle)') ?? 0);
console.log(`${file}: ${total} samples, ${busy} busy; ${idle.map(([k, v]) => `${k} ${((100 * v) / total).toFixed(1)} %`).join(', ')}`);
console.log('self % of busy  function');
for (const [key, n] of [...self].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${((100 * n) / busy).toFixed(1).padStart(6)}  ${key}`);
}
console.log('\nself % of busy  package');
for (const [pkg, n] of [...byPackage].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 20)) {
  console.log(`${((100 * n) / busy).toFixed(1).padStart(6)}  ${pkg}`);
}

if (Number(inclusiveCount) > 0) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  const label = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules\/|packages\/|plugins\/|bench\/)/, '$1')}:${lineNumber + 1}` : ''}`.trim();
  };
  for (const [id, n] of hits) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = label(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + n);
    }
  }
  console.log('\ninclusive % of busy  function');
  for (const [key, n] of [...inclusive].filter(([k]) => !k.startsWith('(root)') && !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(inclusiveCount))) {
    console.log(`${((100 * n) / busy).toFixed(1).padStart(6)}  ${key}`);
  }
}
