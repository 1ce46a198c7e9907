import { describe, expect, it } from 'vitest';
import { mapUsage } from './usage.js';

describe('mapUsage', () => {
  it('counts thoughts as completion, tool-use prompt as prompt, and reports cached and reasoning tokens', () => {
    expect(mapUsage({ promptTokenCount: 100, toolUsePromptTokenCount: 10, cachedContentTokenCount: 60, candidatesTokenCount: 20, thoughtsTokenCount: 30, totalTokenCount: 160 })).toEqual({
      prompt_tokens: 110,
      completion_tokens: 50,
      total_tokens: 160,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
  });

  it('sums when totalTokenCount is missing, and ignores count-less metadata (Vertex trafficType chunks)', () => {
    expect(mapUsage({ promptTokenCount: 3, candidatesTokenCount: 4 })).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(mapUsage({ trafficType: 'ON_DEMAND' } as never)).toBeUndefined();
    expect(mapUsage(undefined)).toBeUndefined();
  });
});
