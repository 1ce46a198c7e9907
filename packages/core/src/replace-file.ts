/**
 * Replaces a file atomically and durably: `write` fills a temporary file beside it, which is
 * synced, renamed over the file, and the folder synced, so a crash leaves the old file or the new
 * one, whole, never a mix. Used by the record journal's compaction and plugin-degrade's queue.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface ReplaceFileOptions {
  /** The new file's permissions (the temporary file is created with them). */
  mode?: number;
  /** `if-supported`: a platform that cannot sync a folder (EISDIR / EPERM opening one) keeps the rename the OS gave. Default `required`. */
  folderSync?: 'required' | 'if-supported';
}

export async function replaceFile(file: string, write: (out: FileHandle) => Promise<unknown>, options: ReplaceFileOptions = {}): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  const out = await open(temporary, 'w', options.mode);
  try {
    try {
      await write(out);
      await out.datasync();
    } finally {
      await out.close();
    }
    await rename(temporary, file);
  } catch (error) {
    // A half-written copy would stay beside the file until the next replace of the same process.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  const synced = syncFolder(path.dirname(file));
  await (options.folderSync === 'if-supported' ? synced.catch(() => undefined) : synced);
}

async function syncFolder(folder: string): Promise<void> {
  const dir = await open(folder, 'r');
  await dir.sync().finally(() => dir.close());
}
