import { readFileSync } from 'node:fs';
const [file, req] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const hits = new Map<number, number>();
for (const id of p.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const dt = (p.endTime - p.startTime) / p.samples.length;
const by = new Map<string, number>();
for (const node of p.nodes) {
  const h = hits.get(node.id) ?? 0; if (!h || node.callFrame.functionName) continue;
  const key = `${node.callFrame.url.split('/').slice(-3).join('/')}:${node.callFrame.lineNumber + 1}`;
  by.set(key, (by.get(key) ?? 0) + h * dt / Number(req));
}
for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(v.toFixed(2).padStart(6), k);
