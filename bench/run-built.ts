/**
 * Runs a bench entry built as the packages ship (see build-contenders.ts) on plain Node:
 *   node --import tsx bench/run-built.ts ./overhead.ts
 * BENCH_TSX=1 runs the source under tsx instead (to compare, or to debug with source maps).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildBenchEntry } from './build-contenders.js';

const entry = process.argv[2];
if (!entry) throw new Error('usage: run-built.ts <entry relative to bench/>');
const name = entry.replace(/^\.\//, '').replace(/\.ts$/, '');
const file = process.env.BENCH_TSX === '1' ? fileURLToPath(new URL(entry, import.meta.url)) : await buildBenchEntry(entry, name);
const loader = process.env.BENCH_TSX === '1' ? ['--conditions=@switchyard/source', '--import', 'tsx'] : [];
const run = spawnSync(process.execPath, [...loader, file, ...process.argv.slice(3)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
