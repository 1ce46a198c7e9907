/**
 * Where a heap sampling profile's bytes were allocated (the inspector's
 * `HeapProfiler.startSampling` with collected objects included, or `--heap-prof`): self bytes
 * per allocating function, and per package, as shares of the total.
 * Run: node --import tsx bench/heap-top.ts <file.heapprofile> [count] [requests]
 */
import { readFileSync } from 'node:fs';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const [file, count = '40', requests] = process.argv.slice(2);
if (!file) {
  console.error('usage: heap-top.ts <file.heapprofile> [count] [requests]');
  process.exit(2);
}
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
const walk = (node: HeapNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  if (node.selfSize > 0) {
    const where = url ? `${url.replace(/^.*\/(node_modules\/|packages\/|plugins\/|bench\/)/, '$1')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? (url.startsWith('node:') ? url.split('/')[0] : url ? url.replace(/^.*\//, '') : '(native)');
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child);
};
walk(head);
const perRequest = requests ? ` (${(total / Number(requests) / 1024).toFixed(1)} KB per request over ${requests})` : '';
console.log(`${file}: ${(total / 1048576).toFixed(1)} MB sampled${perRequest}`);
console.log('self %  bytes/req  function');
for (const [key, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${((100 * bytes) / total).toFixed(1).padStart(5)}  ${requests ? (bytes / Number(requests)).toFixed(0).padStart(8) : ''}  ${key}`);
}
console.log('\nself %  package');
for (const [pkg, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${((100 * bytes) / total).toFixed(1).padStart(5)}  ${pkg}`);
