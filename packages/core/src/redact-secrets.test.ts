import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.js';

const KEY = 'k3y-Abc/def+GHI_jkl-0987654321';

describe('redactSecrets', () => {
  it('masks any run of 8+ characters of a key, in any case and URL-encoded', () => {
    for (const echo of [KEY, KEY.slice(0, 8), KEY.slice(-8), KEY.slice(5, 17), KEY.toUpperCase(), KEY.toLowerCase(), encodeURIComponent(KEY), encodeURIComponent(KEY).slice(3, 14)]) {
      const out = redactSecrets(`bad key "${echo}" given`, [KEY]);
      expect(out, echo).toBe('bad key "[redacted]" given');
    }
  });

  it('leaves runs shorter than 8 characters and unrelated text alone', () => {
    expect(redactSecrets(`prefix ${KEY.slice(0, 7)} only`, [KEY])).toBe(`prefix ${KEY.slice(0, 7)} only`);
    expect(redactSecrets('nothing secret here at all', [KEY])).toBe('nothing secret here at all');
  });

  it('masks short secrets where they appear whole, and well-known key shapes always', () => {
    expect(redactSecrets('token abcd1 in text', ['abcd1'])).toBe('token [redacted] in text');
    expect(redactSecrets('key sk-proj-abcdefghijklmnop')).toBe('key sk-proj-a…[redacted]');
    expect(redactSecrets('Authorization: Bearer xyz')).toBe('Authorization: Bearer [redacted]');
  });

  it('keeps positions right around non-ASCII text', () => {
    expect(redactSecrets(`İstanbul ${KEY.slice(2, 14)} ünü`, [KEY])).toBe('İstanbul [redacted] ünü');
  });

  it('masks with every secret of a list, and follows a list changed in place or a new frozen one', () => {
    const other = 'Zz9Yy8Xx7Ww6Vv5Uu4';
    const list = [KEY];
    expect(redactSecrets(`a ${other.slice(0, 10)} b`, list)).toBe(`a ${other.slice(0, 10)} b`);
    list.push(other, 'abcd1');
    expect(redactSecrets(`a ${other.slice(0, 10)} b ${KEY.slice(-9)} c abcd1`, list)).toBe('a [redacted] b [redacted] c [redacted]');
    const frozen = Object.freeze([KEY]);
    expect(redactSecrets(`x ${KEY.slice(3, 12)}`, frozen)).toBe('x [redacted]');
    expect(redactSecrets(`x ${KEY.slice(3, 12)} ${other}`, Object.freeze([other]))).toBe(`x ${KEY.slice(3, 12)} [redacted]`);
    expect(redactSecrets('no secrets configured sk-', [undefined, '', 'ab'])).toBe('no secrets configured sk-');
  });
});
