/** A bench's table on stdout: columns padded to their widest cell, the first `leftColumns` left-aligned, a blank line after. */
export function printTable(rows: string[][], leftColumns: number): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) console.log(r.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  console.log();
}
