import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CliIO, RunningServer } from '../src/index.js';
import { completion, startLoopback, type Loopback } from '../../core/test/support/loopback.js';

export interface Captured {
  io: CliIO;
  readonly out: string;
  readonly err: string;
}

export function capture(env: Record<string, string | undefined> = {}, cwd = process.cwd()): Captured {
  let out = '';
  let err = '';
  return {
    io: { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) }, env, cwd },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

const dirs: string[] = [];

/** Writes a config into a fresh temp folder and returns its path. */
export async function configFile(text: string, name = 'switchyard.yaml'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchyard-cli-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

const vendors: Loopback[] = [];

/** A loopback vendor that answers every chat with `text`; closed by closeVendors(). */
export async function vendorSaying(text: string): Promise<Loopback> {
  const v = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(text)));
  });
  vendors.push(v);
  return v;
}

export async function closeVendors(): Promise<void> {
  await Promise.all(vendors.splice(0).map((v) => v.close()));
}

/** Vendors a test started itself, closed by closeVendors() / cleanUp(). */
export function keepVendors(...started: Loopback[]): void {
  vendors.push(...started);
}

const servers: RunningServer[] = [];

/** A started gateway, stopped by cleanUp(). */
export function keepServer(server: RunningServer): RunningServer {
  servers.push(server);
  return server;
}

/** After each test: gateways stopped, vendors closed, temp dirs removed. */
export async function cleanUp(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await closeVendors();
  await removeTempDirs();
}
