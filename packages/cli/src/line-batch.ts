/**
 * Log lines written in batches: the lines of the last 20 ms go out in one write (at once when
 * 64 KB wait), instead of one system call per line. The write is the output's own (stdout:
 * synchronous on files and pipes, as it was per line), so the order of lines and the
 * back-pressure of a slow reader stay as they were. `flush()` (shutdown) and the process's
 * `exit` (a fatal error included) write what waits; only a SIGKILL loses the last 20 ms.
 */
import type { Output } from './io.js';

/** Written at once past this many characters. */
export const LINE_BATCH_MAX_CHARS = 64 * 1024;
/** At most this long between a line and its write. */
export const LINE_BATCH_DELAY_MS = 20;

const open = new Set<LineBatch>();
let exitHook = false;

export class LineBatch {
  private pending = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushLater = () => {
    this.timer = undefined;
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
    if (this.timer !== undefined) return;
    // Unref'd: a process with nothing else to do exits, and its exit writes the lines.
    this.timer = setTimeout(this.flushLater, LINE_BATCH_DELAY_MS);
    this.timer.unref();
  }

  /** Writes what waits, now. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
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
