/**
 * A bench contender is a child process that prints one JSON line (its URLs) once it listens; its
 * CPU time and memory are read from /proc (Linux). Shared by bench/gateway.ts and bench/ab.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Pool } from 'undici';

/** Forks `file` and resolves with the JSON line it prints first. */
export async function forkContender(file: string, args: string[], execArgv: string[] = []): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = fork(file, args, { execArgv, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, info: JSON.parse(line) };
}

/** CPU time (ms) a process has used, from /proc (Linux); undefined elsewhere. */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Resident memory (MB), from /proc (Linux); undefined elsewhere. */
export function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Sends `count` POSTs of `body` to `path` over `pool`, `concurrency` at a time; an answer other than 200 throws, naming `who`. */
export async function sendRequests(pool: Pool, path: string, body: string, count: number, concurrency: number, who: string, key?: string): Promise<void> {
  const headers: Record<string, string> = key ? { 'content-type': 'application/json', authorization: `Bearer ${key}` } : { 'content-type': 'application/json' };
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent++ < count) {
        const res = await pool.request({ path, method: 'POST', headers, body });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${who} answered ${res.statusCode}: ${text.slice(0, 200)}`);
      }
    }),
  );
}
