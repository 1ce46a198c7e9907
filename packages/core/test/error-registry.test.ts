import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, sources } from './support/repo-sources.js';
import { defineErrorCodes, errorCodeInfo, httpStatusOf, SwitchyardError, type ErrorKind } from '../src/index.js';
import { errorCode, isSwitchyardErrorCode, registeredErrorCodes } from '../src/internal.js';

/** Each package keeps its codes in src/error-codes.ts (contracts: the shared ones); loading them registers them. */
async function loadEveryOwner(): Promise<string[]> {
  const owners = ['packages', 'plugins'].flatMap((top) => readdirSync(path.join(ROOT, top)).map((name) => path.join(ROOT, top, name, 'src/error-codes.ts'))).filter(existsSync);
  for (const file of [...owners, path.join(ROOT, 'packages/contracts/src/index.ts')]) await import(pathToFileURL(file).href);
  return owners;
}

describe('the error registry', () => {
  it('knows every SWITCHYARD_ERR_* code the shipped sources raise once their owners are loaded, and core holds only its own', async () => {
    const owners = await loadEveryOwner();
    expect(owners.length).toBeGreaterThanOrEqual(7);
    const files = [...sources(path.join(ROOT, 'packages')), ...sources(path.join(ROOT, 'plugins'))];
    const used = new Set(files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/SWITCHYARD_ERR_[A-Z0-9_]*[A-Z0-9]/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(30);
    expect([...used].filter((code) => !isSwitchyardErrorCode(code))).toEqual([]);
    // Core's codes are raised by core: a code only another package raises belongs to that package.
    const coreSources = sources(path.join(ROOT, 'packages/core/src')).filter((f) => !f.endsWith('errors.ts'));
    const coreUsed = new Set(coreSources.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/SWITCHYARD_ERR_[A-Z0-9_]*[A-Z0-9]/g)].map((m) => m[0])));
    const kindCodes = new Set(registeredErrorCodes().filter((i) => i.owner === '@switchyard/core').map((i) => errorCode(i.kind)));
    const unused = registeredErrorCodes().filter((i) => i.owner === '@switchyard/core' && !coreUsed.has(i.code) && !kindCodes.has(i.code));
    expect(unused.map((i) => i.code)).toEqual([]);
  });

  it('gives each code its kind and the HTTP status of that kind, unless the code has its own', () => {
    for (const info of registeredErrorCodes()) {
      expect(info.status).toBe(httpStatusOf({ kind: info.kind, code: info.code }));
      expect(errorCodeInfo(errorCode(info.kind))?.kind).toBe(info.kind);
    }
    expect(errorCodeInfo('SWITCHYARD_ERR_DEADLINE')).toEqual({ code: 'SWITCHYARD_ERR_DEADLINE', kind: 'timeout', status: 504, owner: '@switchyard/core' });
    expect(httpStatusOf({ kind: 'unknown-model' as ErrorKind })).toBe(404);
    expect(new SwitchyardError('auth', 'x').code).toBe('SWITCHYARD_ERR_AUTH');
    expect(httpStatusOf(new SwitchyardError('invalid-request', 'x', { code: 'SWITCHYARD_ERR_IDEMPOTENCY_CONFLICT' }))).toBe(409);
    expect(httpStatusOf(new SwitchyardError('invalid-request', 'x'))).toBe(400);
  });

  it('registers a package\'s own codes: httpStatusOf answers them, the same definition twice is fine, a different one is refused', () => {
    const codes = defineErrorCodes('@acme/guardrail', { ACME_ERR_BLOCKED: { kind: 'invalid-request', status: 403 }, ACME_ERR_SLOW: 'timeout' });
    expect(codes.ACME_ERR_BLOCKED).toBe('ACME_ERR_BLOCKED');
    expect(httpStatusOf({ kind: 'invalid-request', code: codes.ACME_ERR_BLOCKED })).toBe(403);
    expect(httpStatusOf({ kind: 'timeout', code: codes.ACME_ERR_SLOW })).toBe(504);
    // A code raised with another kind than its own gets its kind's status.
    expect(httpStatusOf({ kind: 'server', code: codes.ACME_ERR_BLOCKED })).toBe(502);
    expect(isSwitchyardErrorCode('ACME_ERR_BLOCKED')).toBe(true);
    expect(errorCodeInfo('ACME_ERR_BLOCKED')?.owner).toBe('@acme/guardrail');
    expect(() => defineErrorCodes('@acme/guardrail', { ACME_ERR_BLOCKED: { kind: 'invalid-request', status: 403 } })).not.toThrow();
    expect(() => defineErrorCodes('@other/plugin', { ACME_ERR_BLOCKED: 'server' })).toThrow(/@other\/plugin registers ACME_ERR_BLOCKED as server\/502, but @acme\/guardrail registered it as invalid-request\/403/);
    expect(() => defineErrorCodes('@other/plugin', { 'acme-bad': 'server' })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_INVALID' }));
    expect(() => defineErrorCodes('@other/plugin', { ACME_ERR_ODD: 'odd' as ErrorKind })).toThrow(/no such kind "odd"/);
  });
});
