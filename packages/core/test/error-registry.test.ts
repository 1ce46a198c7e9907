import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorCode, httpStatusOf, isSwitchyardErrorCode, SwitchyardError, type ErrorKind } from '../src/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'test' || name.endsWith('.test.ts')) continue;
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) sources(file, out);
    else if (name.endsWith('.ts')) out.push(file);
  }
  return out;
}

describe('the error registry', () => {
  it('declares every SWITCHYARD_ERR_* code the shipped sources raise', () => {
    const files = [...sources(path.join(ROOT, 'packages')), ...sources(path.join(ROOT, 'plugins'))];
    const used = new Set(files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/SWITCHYARD_ERR_[A-Z0-9_]*[A-Z0-9]/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(30);
    expect([...used].filter((code) => !isSwitchyardErrorCode(code))).toEqual([]);
  });

  it('gives each code its kind and the HTTP status of that kind, unless the code has its own', () => {
    for (const info of Object.values(ERROR_CODES)) {
      expect(info.status).toBe(httpStatusOf({ kind: info.kind, code: info.code }));
      expect(ERROR_CODES[errorCode(info.kind)].kind).toBe(info.kind);
    }
    expect(ERROR_CODES.SWITCHYARD_ERR_DEADLINE).toEqual({ code: 'SWITCHYARD_ERR_DEADLINE', kind: 'timeout', status: 504 });
    expect(httpStatusOf({ kind: 'unknown-model' as ErrorKind })).toBe(404);
    expect(new SwitchyardError('auth', 'x').code).toBe('SWITCHYARD_ERR_AUTH');
    expect(httpStatusOf(new SwitchyardError('invalid-request', 'x', { code: 'SWITCHYARD_ERR_IDEMPOTENCY_CONFLICT' }))).toBe(409);
    expect(httpStatusOf(new SwitchyardError('invalid-request', 'x'))).toBe(400);
  });
});
