/**
 * The durable usage log: one JSON line per billed or counted attempt, in a file per UTC day
 * (`usage.jsonl` → `usage.2026-12-01.jsonl` next to it). Appends run one at a time off the
 * request path; `flush()` waits for them.
 */
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { dayOf, type UsageRecord } from './usage-record.js';

export function logFileFor(base: string, day: string): string {
  const ext = path.extname(base) || '.jsonl';
  return path.join(path.dirname(base), `${path.basename(base, path.extname(base))}.${day}${ext}`);
}

export class UsageLog {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly made = new Set<string>();

  constructor(
    readonly base: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  append(record: UsageRecord): void {
    const file = logFileFor(this.base, dayOf(record.at));
    this.chain = this.chain
      .then(async () => {
        const dir = path.dirname(file);
        if (!this.made.has(dir)) {
          await mkdir(dir, { recursive: true });
          this.made.add(dir);
        }
        await appendFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      })
      .catch(this.onError);
  }

  flush(): Promise<void> {
    return this.chain.then(() => undefined);
  }
}

/** Every record in the daily files of `base` (and `base` itself, if it exists), oldest file first. */
export async function readUsageLog(base: string): Promise<{ records: UsageRecord[]; skipped: string[] }> {
  const dir = path.dirname(base);
  const ext = path.extname(base) || '.jsonl';
  const stem = path.basename(base, path.extname(base));
  const daily = new RegExp(`^${escape(stem)}\\.\\d{4}-\\d{2}-\\d{2}${escape(ext)}$`);
  const names = (await readdir(dir)).filter((n) => daily.test(n) || n === path.basename(base)).sort();
  const records: UsageRecord[] = [];
  const skipped: string[] = [];
  for (const name of names) {
    const text = await readFile(path.join(dir, name), 'utf8');
    for (const [i, raw] of text.split('\n').entries()) {
      if (!raw.trim()) continue;
      try {
        records.push(JSON.parse(raw) as UsageRecord);
      } catch {
        // A line cut by a crash mid-write: skipped, and the caller says where.
        skipped.push(`${name}:${i + 1}`);
      }
    }
  }
  return { records, skipped };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
