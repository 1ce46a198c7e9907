/**
 * The `anthropic-beta` values Claude on Bedrock accepts. Bedrock refuses a request naming a beta
 * it does not know ("invalid beta flag"), which is how Claude Code breaks behind gateways that
 * forward its betas; so unknown betas are dropped and the rest sent in the body's
 * `anthropic_beta`. Source: Amazon Bedrock User Guide, "Anthropic Claude Messages API",
 * request parameter `anthropic_beta`. An endpoint's `options.anthropicBetas` replaces the list.
 */

export const BEDROCK_ANTHROPIC_BETAS: readonly string[] = [
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
];

/** The betas a Bedrock endpoint takes: `options.anthropicBetas`, else the list above. */
export const BEDROCK_DEFAULT_BETAS: ReadonlySet<string> = new Set(BEDROCK_ANTHROPIC_BETAS);
