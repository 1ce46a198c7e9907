/**
 * What makes `serve` reload when a secret changes, without a signal: the `${file:…}` secret
 * files (their folders are watched, so an atomic replace and Kubernetes' symlink swap of a
 * mounted Secret are seen; a reload happens only when a file's contents really changed), and
 * the external secrets whose resolvers can watch (a new Vault version).
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { SwitchyardError } from '@switchyard/core';
import { type ResolvedSecrets } from '@switchyard/core/config';

export interface SecretWatchOptions {
  /** Called (debounced) when a secret changed; `what` names the file or the reference, never a value. */
  onChange: (what: string) => void;
  onError: (error: SwitchyardError, what: string) => void;
  debounceMs: number;
}

function contentsOf(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // Missing for a moment during a replace; the next event reads it again.
    return undefined;
  }
}

export class SecretWatch {
  private readonly watchers: FSWatcher[] = [];
  private readonly stops: (() => void)[] = [];
  private readonly known = new Map<string, string | undefined>();
  /** Contents seen once that differ from `known`, waiting for a second read to agree. */
  private readonly unconfirmed = new Map<string, string>();
  private debounce: ReturnType<typeof setTimeout> | undefined;

  constructor(
    files: readonly string[],
    external: ResolvedSecrets,
    private readonly options: SecretWatchOptions,
  ) {
    for (const file of files) this.known.set(file, contentsOf(file));
    for (const dir of new Set(files.map((f) => path.dirname(f)))) {
      try {
        this.watchers.push(watch(dir, () => this.schedule()));
      } catch {
        // A folder that does not exist: the config failed to load already.
      }
    }
    for (const { scheme, resolver, read } of external.resolvers) {
      if (!resolver.watch || read.size === 0) continue;
      this.stops.push(
        resolver.watch(
          read,
          (reference) => options.onChange(`\${${scheme}:${reference}}`),
          (error) => options.onError(error, scheme),
        ),
      );
    }
  }

  private schedule(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.check(), this.options.debounceMs);
  }

  /**
   * Reloads only for a file whose contents differ from what the running config read, and read
   * the same on two checks a debounce period apart: a writer that truncates and then writes (a
   * plain `echo > file`, Node's writeFile) leaves the file empty or half written for a moment, and
   * a reload then would resolve that moment's key. An empty file is such a moment too.
   */
  private check(): void {
    const changed: string[] = [];
    let unsettled = false;
    for (const [file, before] of this.known) {
      const now = contentsOf(file);
      if (now === undefined || now.trim() === '' || now === before) {
        this.unconfirmed.delete(file);
        continue;
      }
      if (this.unconfirmed.get(file) !== now) {
        this.unconfirmed.set(file, now);
        unsettled = true;
        continue;
      }
      this.unconfirmed.delete(file);
      this.known.set(file, now);
      changed.push(file);
    }
    if (changed.length > 0) this.options.onChange(changed.join(', '));
    if (unsettled) this.schedule();
  }

  close(): void {
    clearTimeout(this.debounce);
    for (const w of this.watchers) w.close();
    for (const stop of this.stops) stop();
    this.watchers.length = 0;
    this.stops.length = 0;
  }
}
