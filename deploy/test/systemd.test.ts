import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_PATH, drainSeconds, readRepo, tool } from './support.js';

const UNIT = 'deploy/systemd/switchyard.service';
const text = readRepo(UNIT);

/** `[Section]` → key → every value given (systemd allows repeats). */
function parseUnit(unit: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const raw of unit.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) sections[header[1]] = current = {};
    else {
      const at = line.indexOf('=');
      (current![line.slice(0, at)] ??= []).push(line.slice(at + 1));
    }
  }
  return sections;
}

const service = parseUnit(text).Service;
const one = (key: string) => service[key]?.at(-1);

describe('systemd unit', () => {
  it('serves the production bundle with the config every deployment uses and keys from an EnvironmentFile', () => {
    expect(one('ExecStart')).toBe(`/usr/bin/node /opt/switchyard/bin.js serve --config ${CONFIG_PATH} --no-watch`);
    expect(one('EnvironmentFile')).toBe('/etc/switchyard/secrets.env');
    expect(one('Restart')).toBe('on-failure');
  });

  it('reloads with SIGHUP and stops with SIGTERM, waiting longer than the drain', () => {
    expect(one('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(Number(one('TimeoutStopSec'))).toBeGreaterThanOrEqual(drainSeconds());
  });

  it('runs as a dynamic unprivileged user with the hardening options', () => {
    expect(one('DynamicUser')).toBe('yes');
    for (const key of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID']) expect(one(key), key).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('CapabilityBoundingSet')).toBe('');
  });

  it.skipIf(!tool('systemd-analyze'))('passes systemd-analyze verify', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-unit-'));
    try {
      // verify checks that ExecStart's binary exists: point it at this machine's node when
      // Node is not installed at /usr/bin/node (a CI image may keep it in /usr/local/bin).
      const unit = existsSync('/usr/bin/node') ? text : text.replaceAll('/usr/bin/node', process.execPath);
      const file = path.join(dir, 'switchyard.service');
      writeFileSync(file, unit);
      // An unknown or misplaced key is only a warning (exit 0): any output fails the test.
      const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
