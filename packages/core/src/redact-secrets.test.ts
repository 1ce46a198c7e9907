import { describe, expect, it } from 'vitest';
import { redactSecrets, secretRandomPart } from './redact-secrets.js';

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

describe('redactSecrets with keys named by a prefix (issue 38)', () => {
  // The README's recipe: sk-switchyard-$(openssl rand -hex 16).
  const README_KEY = 'sk-switchyard-3f9c2a7d51e04b8c96a1d0e7f2b45c83';

  it('finds the random part after the naming prefix', () => {
    expect(secretRandomPart(README_KEY)).toBe('3f9c2a7d51e04b8c96a1d0e7f2b45c83');
    expect(secretRandomPart('sk-ant-api03-Xy_7Qp-Lm2Rt9Vw')).toBe('Xy_7Qp-Lm2Rt9Vw');
    expect(secretRandomPart('AIzaSyD4x7Qp0Lm2Rt9VwKj3')).toBe('AIzaSyD4x7Qp0Lm2Rt9VwKj3');
    expect(secretRandomPart('sk-deepseek-test-key-0001')).toBe('0001');
  });

  it("leaves the gateway's own words alone: error codes, package names, endpoint names, paths", () => {
    const line = 'SWITCHYARD_ERR_OVERLOADED from @switchyard/plugin-retry reloading /srv/switchyard/switchyard.yaml';
    expect(redactSecrets(line, [README_KEY])).toBe(line);
    expect(redactSecrets('endpoint deepseek answered', ['sk-deepseek-test-key-0001'])).toBe('endpoint deepseek answered');
  });

  it("still masks the key whole, and a vendor's echo of its prefix or suffix", () => {
    expect(redactSecrets(`key ${README_KEY} refused`, [README_KEY])).toBe('key [redacted] refused');
    expect(redactSecrets(`Incorrect API key provided: ${README_KEY.slice(0, 24)}****`, [README_KEY])).toBe('Incorrect API key provided: sk-switchy[redacted]****');
    expect(redactSecrets(`key ending ${README_KEY.slice(-10).toUpperCase()}`, [README_KEY])).toBe('key ending [redacted]');
    expect(redactSecrets('bad key sk-deepseek-test-key-0001', ['sk-deepseek-test-key-0001'])).toBe('bad key [redacted]');
  });

  it('does not mask a fragment that also occurs in the text the caller writes itself', () => {
    const key = 'k-Zq81primaryPool9x';
    expect(redactSecrets('endpoint primaryPool failed', [key])).toBe('endpoint [redacted] failed');
    expect(redactSecrets('endpoint primaryPool failed', [key], ['primaryPool'])).toBe('endpoint primaryPool failed');
    expect(redactSecrets(`echo ${key.slice(2)}`, [key], ['primaryPool'])).toBe('echo [redacted]');
  });
});
