/**
 * `GET /v1/models?client_version=…`: Codex's model discovery (codex-rs `ModelsClient`), answered
 * in the shape it parses (`{ models: [ModelInfo], etag }`), one entry per logical model the
 * caller may use. `base_instructions` is null: Codex keeps its own instructions for the model.
 */
import type { DialectHeaders } from '@switchyard/core/dialect';

/** Codex asks for its model list with its version in the query. */
export function isCodexDiscovery(_headers: DialectHeaders, query: URLSearchParams): boolean {
  return query.has('client_version');
}

const EFFORTS = ['low', 'medium', 'high'].map((effort) => ({ effort, description: `${effort} reasoning effort` }));

export function codexModelInfo(slug: string, priority: number) {
  return {
    slug,
    display_name: slug,
    description: `${slug} through Switchyard`,
    default_reasoning_level: 'medium',
    supported_reasoning_levels: EFFORTS,
    shell_type: 'shell_command',
    visibility: 'list',
    supported_in_api: true,
    priority,
    upgrade: null,
    base_instructions: null,
    supports_reasoning_summaries: true,
    support_verbosity: false,
    default_verbosity: null,
    apply_patch_tool_type: 'freeform',
    truncation_policy: { mode: 'tokens', limit: 10000 },
    supports_parallel_tool_calls: true,
    experimental_supported_tools: [],
  };
}

export function codexModelList(models: readonly string[]) {
  return { models: models.map((slug, i) => codexModelInfo(slug, i + 1)), etag: '' };
}
