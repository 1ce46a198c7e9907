/** Reads values out of a Prometheus text exposition (what /metrics answered). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const close = line.lastIndexOf('}');
    const inner = open === name.length && close > open ? line.slice(open + 1, close) : '';
    const got = new Map([...inner.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (got.size !== wanted.length || !wanted.every(([k, v]) => got.get(k) === v)) continue;
    return Number(line.slice((close > open ? close : name.length) + 1).trim());
  }
  return undefined;
}
