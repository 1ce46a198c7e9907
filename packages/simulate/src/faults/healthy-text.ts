/** The deterministic answer healthy handlers stream, so tests can compare what arrived. */

const WORDS = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog. '];

export const DEFAULT_TOKENS = 8;

export function healthyTokens(count: number = DEFAULT_TOKENS): string[] {
  return Array.from({ length: count }, (_, i) => WORDS[i % WORDS.length]!);
}

/** The full text a healthy answer of `count` tokens carries. */
export function healthyText(count: number = DEFAULT_TOKENS): string {
  return healthyTokens(count).join('');
}
