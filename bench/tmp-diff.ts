import { readFileSync } from 'node:fs';
const [a, reqA, b, reqB, n = '40'] = process.argv.slice(2);
function load(file: string) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const hits = new Map<number, number>();
  for (const id of p.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byName = new Map<string, number>();
  const dt = (p.endTime - p.startTime) / p.samples.length; // µs per sample
  for (const node of p.nodes) {
    const h = hits.get(node.id) ?? 0; if (!h) continue;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    const file = node.callFrame.url.split('/').slice(-2).join('/').replace(/chunk-\w+\.js/, 'chunk');
    const key = process.env.BYFILE ? `${name} ${file}` : name;
    byName.set(key, (byName.get(key) ?? 0) + h * dt);
  }
  return byName;
}
const A = load(a), B = load(b);
const keys = new Set([...A.keys(), ...B.keys()]);
const rows = [...keys].map((k) => [k, (A.get(k) ?? 0) / Number(reqA), (B.get(k) ?? 0) / Number(reqB)] as const);
let ta = 0, tb = 0; for (const r of rows) { ta += r[1]; tb += r[2]; }
console.log(`total µs/req sampled: A ${ta.toFixed(1)} B ${tb.toFixed(1)}`);
rows.sort((x, y) => (y[2] - y[1]) - (x[2] - x[1]));
for (const r of rows.slice(0, Number(n))) console.log(`${(r[2] - r[1]).toFixed(2).padStart(7)} ${r[1].toFixed(2).padStart(6)} ${r[2].toFixed(2).padStart(6)}  ${r[0]}`);
