/** The repository's shipped TypeScript sources, for tests that check what lives where. */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Every `.ts` file under `dir`, without tests, test folders, builds and dependencies. */
export function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'test' || name.endsWith('.test.ts')) continue;
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) sources(file, out);
    else if (name.endsWith('.ts')) out.push(file);
  }
  return out;
}
