import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '@switchyard/core';
import { LOGGER_MASKER, maskerOf, maskingLogger, SecretMasker } from '../src/index.js';
import { recordingLogger } from './support/log-recorder.js';

const KEY = 'Zq4Wm9Xt2Lp7Rk3Vn8Bc';

describe('SecretMasker', () => {
  it('masks whole keys and any 8-character piece, in strings, nested objects, arrays and errors', () => {
    const masker = new SecretMasker(() => [KEY, undefined, 'abc']);
    expect(masker.text(`key ${KEY} and piece ${KEY.slice(5, 14)} and short ${KEY.slice(0, 7)}`)).toBe(`key [redacted] and piece [redacted] and short ${KEY.slice(0, 7)}`);
    const error = new SwitchyardError('auth', `invalid key ${KEY}`, { status: 401 });
    const masked = masker.value({ nested: { list: [`x${KEY}`], error }, n: 3, none: null }) as { nested: { list: string[]; error: { message: string; kind: string } }; n: number; none: null };
    expect(masked.nested.list).toEqual(['x[redacted]']);
    expect(masked.nested.error).toMatchObject({ kind: 'auth', message: 'invalid key [redacted]', status: 401 });
    expect(masked.n).toBe(3);
    expect(masked.none).toBeNull();
    expect(JSON.stringify(masked)).not.toContain(KEY.slice(0, 8));
  });

  it('follows the secrets as they change (a reload with new keys) and masks the message of a log line', () => {
    let keys = [KEY];
    const masker = new SecretMasker(() => keys);
    const host = recordingLogger();
    const logger = maskingLogger(host, masker);
    logger.warn({ error: `echo ${KEY}` }, `message ${KEY}`);
    keys = ['Nn5Gg2Hh8Jj4Kk1Ll9Mm'];
    logger.info({ error: 'echo Nn5Gg2Hh8Jj4Kk1Ll9Mm' });
    expect(host.lines).toEqual([
      { level: 'warn', error: 'echo [redacted]', msg: 'message [redacted]' },
      { level: 'info', error: 'echo [redacted]', msg: undefined },
    ]);
  });

  it('reads a source again every call: a frozen list replaced on reload, and a list changed in place', () => {
    const next = 'Nn5Gg2Hh8Jj4Kk1Ll9Mm';
    let frozen: readonly string[] = Object.freeze([KEY]);
    const fromFrozen = new SecretMasker(() => frozen);
    expect(fromFrozen.text(`${KEY} ${next}`)).toBe(`[redacted] ${next}`);
    frozen = Object.freeze([KEY, next]);
    expect(fromFrozen.text(`${KEY} ${next}`)).toBe('[redacted] [redacted]');

    const mutable = [KEY];
    const fromMutable = new SecretMasker(() => mutable);
    expect(fromMutable.text(`${KEY} ${next}`)).toBe(`[redacted] ${next}`);
    mutable.push(next);
    expect(fromMutable.text(`${KEY} ${next}`)).toBe('[redacted] [redacted]');
  });

  it('censors credential fields at any depth whatever their value, and a config endpoint\'s headers whole', () => {
    const masker = new SecretMasker(() => []);
    const masked = masker.value({
      headers: { Authorization: 'Basic dXNlcjpwYXNz', 'X-Api-Key': 'short', 'content-type': 'application/json' },
      request: { headers: { 'proxy-authorization': 'x', 'x-goog-api-key': 'y' } },
      config: { endpoints: [{ name: 'a', apiKey: 'sk-abc', apiKeys: ['k1', 'k2'], headers: { 'X-Tenant': 'tenant-token' }, keyIds: ['main'] }] },
      keyId: 'openai-main',
      apiKey: undefined,
      status: 401,
    });
    expect(masked).toEqual({
      headers: { Authorization: '[redacted]', 'X-Api-Key': '[redacted]', 'content-type': 'application/json' },
      request: { headers: { 'proxy-authorization': '[redacted]', 'x-goog-api-key': '[redacted]' } },
      config: { endpoints: [{ name: 'a', apiKey: '[redacted]', apiKeys: '[redacted]', headers: '[redacted]', keyIds: ['main'] }] },
      keyId: 'openai-main',
      apiKey: undefined,
      status: 401,
    });
  });

  it('keeps an unexpected error\'s stack, masked', () => {
    const masker = new SecretMasker(() => [KEY]);
    const masked = masker.value({ error: new TypeError(`cannot read ${KEY}`) }) as { error: { type: string; message: string; stack: string } };
    expect(masked.error.type).toBe('TypeError');
    expect(masked.error.stack).toContain('TypeError: cannot read [redacted]');
    expect(JSON.stringify(masked)).not.toContain(KEY.slice(0, 8));
  });

  it('masks the secrets of every source added, until the source is removed', () => {
    const masker = new SecretMasker(() => [KEY]);
    const other = 'Nn5Gg2Hh8Jj4Kk1Ll9Mm';
    const remove = masker.addSource(() => [other]);
    expect(masker.text(`${KEY} ${other}`)).toBe('[redacted] [redacted]');
    remove();
    expect(masker.text(`${KEY} ${other}`)).toBe(`[redacted] ${other}`);
    expect(maskerOf({ ...recordingLogger(), [LOGGER_MASKER]: masker })).toBe(masker);
    expect(maskerOf(recordingLogger())).toBeUndefined();
  });
  it('remembers only the strings it left clean: a reload that adds a key masks a string seen before', () => {
    let keys: readonly string[] = Object.freeze([KEY]);
    const masker = new SecretMasker(() => keys);
    const next = 'Nn5Gg2Hh8Jj4Kk1Ll9Mm';
    const line = { event: 'access', endpoint: `echo ${next}`, status: 200, nested: { list: ['a', 'b'] } };
    // Nothing to mask: the very object comes back, no copy.
    expect(masker.value(line)).toBe(line);
    expect(masker.value(line)).toBe(line);
    keys = Object.freeze([KEY, next]);
    const masked = masker.value(line) as typeof line;
    expect(masked).not.toBe(line);
    expect(masked).toEqual({ event: 'access', endpoint: 'echo [redacted]', status: 200, nested: { list: ['a', 'b'] } });
    expect(masked.nested).toBe(line.nested);
    expect(line.endpoint).toBe(`echo ${next}`);
    // A masked string is masked again on every call, not remembered.
    expect(masker.text(`echo ${KEY}`)).toBe('echo [redacted]');
    expect(masker.text(`echo ${KEY}`)).toBe('echo [redacted]');
    // A class instance still comes back as a plain object of its own fields.
    class Point {
      constructor(readonly x: number) {}
      get twice(): number {
        return this.x * 2;
      }
    }
    const point = masker.value(new Point(2));
    expect(Object.getPrototypeOf(point)).toBe(Object.prototype);
    expect(point).toEqual({ x: 2 });
  });
});
