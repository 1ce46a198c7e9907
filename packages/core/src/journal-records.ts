/**
 * The embedded record store of a single gateway: a journal file, one JSON line per change,
 * appended and fsynced before a write resolves (writes waiting together share one fsync), and
 * rewritten with only the live records once it has grown to several times their size, beside the
 * writes rather than in front of them (journal-rewrite.ts). Records
 * that expired leave memory a few at a time as writes come (expiry-sweep.ts), and the file at the next
 * rewrite: a gateway storing answers for a day holds a day of them, however long it runs. Read at
 * open and rewritten in slices of bytes, never as one string (V8 caps a string at 512 MiB, and
 * the default caps allow 1 GiB of stored Responses); a torn last line (a kill in the middle of a
 * write that was never acknowledged) is dropped. No server, no native module: see docs/deploy.md
 * for the measurements against SQLite and PGlite that chose it.
 */
import { constants } from 'node:fs';
import { access, mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { DurableRecord, DurableRecordStore } from './durable-records.js';
import { SwitchyardError } from './errors.js';
import { ExpirySweep } from './expiry-sweep.js';
import { JournalRewrite, type ReplaceFile } from './journal-rewrite.js';
import { JsonText } from './json-text.js';

/**
 * A line: [key, value, expiresAt] writes a record, [key] deletes it. A value given as JSON text
 * (`JsonText`) is written as that text, and the line says so (a fourth element, 1): it is read
 * back as the same text, cut out of the line, so a restart holds what the writer held.
 */
type Line = [key: string, value?: unknown, expiresAt?: number | null, jsonText?: 1];

/** Rewritten once the file holds this many lines more than live records (and at least twice as many); after a failed rewrite, tried again this many lines later. */
export const COMPACT_AFTER_LINES = 10_000;

/** Bytes read from the file, and written to its rewrite, at a time. */
const SLICE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

interface LiveRecord {
  value: unknown;
  expiresAt: number | null;
}

/** Whether a record with this expiry (null: never) has expired at `now`. */
const expiredAt = (expiresAt: number | null, now: number): boolean => expiresAt !== null && expiresAt <= now;

/** A record as its journal line (without the newline). */
const lineOf = (r: DurableRecord): string =>
  r.value instanceof JsonText ? `[${JSON.stringify(r.key)},${r.value.json},${r.expiresAt},1]` : JSON.stringify([r.key, r.value, r.expiresAt] satisfies Line);

/** The value of a line `lineOf` wrote from a JsonText: the text between its key and its expiry, as written. */
function jsonTextIn(row: string, line: Line): JsonText {
  const from = JSON.stringify(line[0]).length + 2;
  const tail = `,${line[2]},1]`;
  const to = row.length - tail.length;
  // Another writer's spacing (a line edited by hand): serialized again.
  if (row.charCodeAt(from - 1) !== 0x2c || !row.endsWith(tail) || to <= from) return new JsonText(JSON.stringify(line[1]));
  return new JsonText(row.slice(from, to));
}

interface Pending {
  lines: string;
  count: number;
  done: (error?: unknown) => void;
}

export interface JournalOptions {
  clock?: Clock;
  /** A rewrite that failed (the journal goes on in its old file, and tries again after another `COMPACT_AFTER_LINES` lines). */
  onRewriteError?: (error: unknown) => void;
  /** The atomic replace a rewrite ends with (tests hold it to write beside a rewrite). */
  replace?: ReplaceFile;
}

export class JournalRecords implements DurableRecordStore {
  private readonly live = new Map<string, LiveRecord>();
  /**
   * Expired records read as absent; without the sweep they stayed in memory, and in the file
   * (rewritten only once it holds more than twice the records kept), for as long as the gateway ran.
   */
  private readonly sweep: ExpirySweep<LiveRecord>;
  private handle: FileHandle | undefined;
  private lines = 0;
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  private rewrite: JournalRewrite | undefined;
  /** No rewrite before the file holds this many lines (after a failed one, another `COMPACT_AFTER_LINES`). */
  private rewriteAfter = 0;
  private readonly clock: Clock;
  /** Lines dropped at open (a torn write); for the start log. */
  dropped = 0;

  constructor(
    readonly file: string,
    private readonly options: JournalOptions = {},
  ) {
    const clock = (this.clock = options.clock ?? systemClock);
    this.sweep = new ExpirySweep(this.live, (record, now) => expiredAt(record.expiresAt, now), () => clock.now());
  }

  get where(): string {
    return `journal ${this.file}`;
  }

  async open(): Promise<void> {
    const dir = path.dirname(this.file);
    try {
      await mkdir(dir, { recursive: true });
      await access(dir, constants.W_OK);
      const unterminated = await this.load();
      this.handle = await open(this.file, 'a', 0o600);
      // The next line must not be glued to a torn one: the pair would be dropped at the next open, an acknowledged write with it.
      if (unterminated) await this.handle.write('\n');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new SwitchyardError('config', `records.file ${this.file} cannot be written (${code}): durable records (keys, spend, stored responses) need a writable location; give records.file one (systemd: StateDirectory=, Kubernetes: a volume)`, {
        code: 'SWITCHYARD_ERR_RECORDS_LOCATION',
        path: 'records.file',
        cause: error,
      });
    }
  }

  /**
   * Reads the file a slice at a time: lines are split as bytes (a newline is never part of a
   * longer UTF-8 character). True when the file does not end with a newline.
   */
  private async load(): Promise<boolean> {
    const input = await open(this.file, 'r').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
    if (!input) return false;
    const now = this.clock.now();
    try {
      let rest: Buffer = Buffer.alloc(0);
      for await (const chunk of input.createReadStream({ highWaterMark: SLICE_BYTES, autoClose: false })) {
        const bytes: Buffer = rest.length > 0 ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
        let from = 0;
        for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, from)) {
          this.loadLine(bytes.toString('utf8', from, end), now);
          from = end + 1;
        }
        rest = bytes.subarray(from);
      }
      // After the last newline: a write cut short (never acknowledged), dropped when it does not parse.
      if (rest.length > 0) this.loadLine(rest.toString('utf8'), now);
      return rest.length > 0;
    } finally {
      await input.close();
    }
  }

  private loadLine(row: string, now: number): void {
    if (!row) return;
    let line: Line;
    try {
      line = JSON.parse(row) as Line;
    } catch {
      this.dropped++;
      return;
    }
    this.lines++;
    const expiresAt = line[2] ?? null;
    // The last line of a key decides; an expired one leaves it out.
    if (line.length === 1 || expiredAt(expiresAt, now)) this.live.delete(line[0]);
    else this.live.set(line[0], { value: line[3] === 1 ? jsonTextIn(row, line) : line[1], expiresAt });
  }

  async get(key: string): Promise<DurableRecord | undefined> {
    return this.peek(key);
  }

  private peek(key: string): DurableRecord | undefined {
    const entry = this.live.get(key);
    if (!entry || expiredAt(entry.expiresAt, this.clock.now())) return undefined;
    return { key, value: entry.value, expiresAt: entry.expiresAt };
  }

  async put(records: readonly DurableRecord[]): Promise<void> {
    if (records.length === 0) return;
    const size = this.live.size;
    for (const r of records) this.live.set(r.key, { value: r.value, expiresAt: r.expiresAt });
    this.sweep.added(this.live.size - size);
    await this.append(records.map(lineOf));
  }

  async delete(key: string): Promise<void> {
    if (!this.live.delete(key)) return;
    await this.append([JSON.stringify([key] satisfies Line)]);
  }

  async compareAndSet<T>(key: string, expected: T | undefined, next: T | undefined, expiresAt: number | null): Promise<boolean> {
    // No await between the comparison and the change (put and delete change `live` at once):
    // atomic for every caller in this process, the journal's only writer.
    const current = this.peek(key);
    if (JSON.stringify(current?.value) !== JSON.stringify(expected)) return false;
    if (next === undefined) await this.delete(key);
    else await this.put([{ key, value: next, expiresAt }]);
    return true;
  }

  async list(): Promise<DurableRecord[]> {
    return this.liveRecords();
  }

  private liveRecords(): DurableRecord[] {
    const now = this.clock.now();
    const out: DurableRecord[] = [];
    for (const [key, { value, expiresAt }] of this.live) if (!expiredAt(expiresAt, now)) out.push({ key, value, expiresAt });
    return out;
  }

  /** Live records now (the status page, tests). */
  size(): number {
    return this.live.size;
  }

  private append(lines: string[]): Promise<void> {
    // Refused here, not in `drain`: a drain that failed before its first await would be over
    // before `writing` held it, and `close` would wait on it forever.
    if (!this.handle) return Promise.reject(new Error(`the journal ${this.file} is not open`));
    return new Promise((resolve, reject) => {
      this.queue.push({ lines: `${lines.join('\n')}\n`, count: lines.length, done: (error) => (error ? reject(error) : resolve()) });
      this.lines += lines.length;
      this.writing ??= this.drainSoon();
    });
  }

  /**
   * The drain, a turn of the event loop later: the writes this turn makes go in one batch. Started
   * at once, the first write of a turn was a batch of its own (a write and an fsync for one line)
   * and the turn's others the next.
   */
  private async drainSoon(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.drain();
  }

  /**
   * One write and one fsync for everything queued meanwhile (group commit). A rewrite ready to
   * switch over does so between two batches: the only moment no line is being appended.
   */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.rewrite?.ready) {
      if (this.rewrite?.ready) {
        await this.switchOver(this.rewrite);
        continue;
      }
      const batch = this.queue;
      this.queue = [];
      const text = batch.length === 1 ? batch[0]!.lines : batch.map((p) => p.lines).join('');
      this.rewrite?.appended(text, countOf(batch));
      try {
        if (!this.handle) throw new Error('the journal is closed');
        await this.handle.write(text);
        await this.handle.datasync();
        for (const p of batch) p.done();
      } catch (error) {
        for (const p of batch) p.done(error);
      }
      if (!this.rewrite && this.lines >= this.rewriteAfter && this.lines > COMPACT_AFTER_LINES + this.live.size && this.lines > 2 * this.live.size) this.startRewrite();
    }
    this.writing = undefined;
  }

  /** The live records to a new file, while writes go on to this one (journal-rewrite.ts). */
  private startRewrite(): void {
    this.rewrite = new JournalRewrite(this.file, this.liveRecords(), lineOf, SLICE_BYTES, {
      replace: this.options.replace,
      ready: () => {
        this.writing ??= this.drain();
      },
      failed: (error) => {
        this.rewrite = undefined;
        this.rewriteAfter = this.lines + COMPACT_AFTER_LINES;
        this.options.onRewriteError?.(error);
      },
    });
  }

  private async switchOver(rewrite: JournalRewrite): Promise<void> {
    if (!(await rewrite.switchOver())) return;
    this.rewrite = undefined;
    await this.handle?.close();
    this.lines = rewrite.lines + countOf(this.queue);
    try {
      this.handle = await open(this.file, 'a', 0o600);
    } catch (error) {
      // Writes are refused from here (a 503 at the gateway) rather than appended to a file no longer in place.
      this.handle = undefined;
      this.options.onRewriteError?.(error);
    }
  }

  async close(): Promise<void> {
    while (this.writing || this.rewrite) await (this.writing ?? this.rewrite!.outcome);
    await this.handle?.close();
    this.handle = undefined;
  }
}

const countOf = (batch: readonly Pending[]): number => {
  let lines = 0;
  for (const p of batch) lines += p.count;
  return lines;
};
