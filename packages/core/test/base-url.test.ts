import { describe, expect, it } from 'vitest';
import { parseBaseUrl } from '../src/base-url.js';

describe('parseBaseUrl', () => {
  it('gives the URL and its path without trailing slashes', () => {
    const parsed = parseBaseUrl('https://NAME.services.ai.azure.com/anthropic/v1//');
    expect(parsed?.url.hostname).toBe('name.services.ai.azure.com');
    expect(parsed?.path).toBe('/anthropic/v1');
    expect(parseBaseUrl('https://api.anthropic.com')?.path).toBe('');
  });

  it('is undefined for text that is not a URL (the config schema reports it)', () => {
    expect(parseBaseUrl('api.anthropic.com/v1')).toBeUndefined();
    expect(parseBaseUrl('')).toBeUndefined();
  });
});
