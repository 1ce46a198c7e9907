import { describe, expect, it } from 'vitest';
import { parseBaseUrl } from '../src/base-url.js';
import { joinUrl } from '../src/wire-request.js';

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

describe('joinUrl', () => {
  it('puts a path under a base, one slash between them, and keeps an absolute path as it is', () => {
    expect(joinUrl('https://api.openai.com/v1', '/chat/completions')).toBe('https://api.openai.com/v1/chat/completions');
    expect(joinUrl('https://api.openai.com/v1//', '/chat/completions')).toBe('https://api.openai.com/v1/chat/completions');
    expect(joinUrl('https://api.openai.com/v1/', 'chat/completions')).toBe('https://api.openai.com/v1/chat/completions');
    expect(joinUrl('https://h', '')).toBe('https://h/');
    expect(joinUrl('https://h/', '//x')).toBe('https://h//x');
    expect(joinUrl('https://h', 'https://other.example/x')).toBe('https://other.example/x');
    expect(joinUrl('https://h', 'http://other.example/x')).toBe('http://other.example/x');
    // Only a lower-case scheme counts as absolute, as before.
    expect(joinUrl('https://h', 'HTTPS://x')).toBe('https://h/HTTPS://x');
  });
});
