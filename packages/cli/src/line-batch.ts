/**
 * Log lines written in batches: the lines of one turn of the event loop go out in one write
 * when the turn ends (or at once when 64 KB wait), instead of one system call per line. The
 * write is the output's own (stdout: synchronous on files and pipes, as it was per line), so the
 * order of lines and the back-pressure of a slow reader stay as they were; only the lines of the
 * turn in progress wait, and `flush()` (shutdown) and the process's `exit` write them.
 */
import type { Output } from './io.js';

/** Written at once past this many characters, whatever the turn. */
export const LINE_BATCH_MAX_CHARS = 64 * 1024;

const open = new Set<LineBatch>();
let exitHook = false;

export class LineBatch {
  private pending = '';
  private scheduled = false;
  private readonly flushAtTurnEnd = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly out: Output) {
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      // An exit (a fatal error included) still writes what the current turn logged.
      process.once('exit', () => {
        for (const batch of open) batch.flush();
      });
    }
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= LINE_BATCH_MAX_CHARS) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flushAtTurnEnd);
  }

  /** Writes what waits, now. */
  flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending;
    this.pending = '';
    this.out.write(text);
  }

  /** Writes what waits and stops listening for the process's exit. */
  close(): void {
    this.flush();
    open.delete(this);
  }
}
