/**
 * The Messages dialect's translation policy: what becomes of each field, content block, tool
 * type and header when a Messages request goes to a vendor of another API (core's
 * `TranslationTable`; docs/agents.md shows the same table). Anthropic targets get the client's
 * body as it came, whatever the table says.
 */
import type { TableEntry, TranslationTable } from '@switchyard/core/dialect';

const carried = (what: string): TableEntry => ({ treatment: 'carried', what });
const hint = (what: string): TableEntry => ({ treatment: 'hint', what });
const capability = (what: string): TableEntry => ({ treatment: 'capability', what });

export const MESSAGES_TABLE: TranslationTable = {
  // Top-level fields.
  model: carried('the model'),
  max_tokens: carried('the output cap'),
  messages: carried('the turns'),
  system: carried('the system prompt'),
  stream: carried('streaming'),
  tools: carried('the tools'),
  tool_choice: carried('the tool choice'),
  stop_sequences: carried('stop sequences'),
  temperature: carried('temperature'),
  top_p: carried('top_p'),
  metadata: carried('metadata (user_id becomes user)'),
  switchyard: carried("the gateway's own hints"),
  thinking: hint('extended thinking settings'),
  top_k: hint('top_k'),
  service_tier: hint('a service tier'),
  context_management: hint('context management edits (clear_thinking, clear_tool_uses)'),
  container: capability('a code execution container'),
  mcp_servers: capability('remote MCP servers'),
  // Content blocks.
  'block:text': carried('a text block'),
  'block:image': carried('an image block (base64 or URL)'),
  'block:document': carried('a document block (base64 or plain text)'),
  'block:tool_use': carried('a tool call'),
  'block:tool_result': carried('a tool result'),
  'block:thinking': carried('a thinking block (as reasoning; its signature stays with Anthropic)'),
  'block:redacted_thinking': carried('a redacted thinking block (Anthropic only reads it)'),
  'block:search_result': capability('a search_result block'),
  'block:container_upload': capability('a container_upload block'),
  'block:server_tool_use': capability('a server_tool_use block'),
  'block:web_search_tool_result': capability('a web_search_tool_result block'),
  'block:web_fetch_tool_result': capability('a web_fetch_tool_result block'),
  'block:code_execution_tool_result': capability('a code_execution_tool_result block'),
  'block:bash_code_execution_tool_result': capability('a bash_code_execution_tool_result block'),
  'block:text_editor_code_execution_tool_result': capability('a text_editor_code_execution_tool_result block'),
  'block:tool_search_tool_result': capability('a tool_search_tool_result block'),
  'block:mcp_tool_use': capability('an mcp_tool_use block'),
  'block:mcp_tool_result': capability('an mcp_tool_result block'),
  'block:tool_reference': capability('a tool_reference block'),
  // Parts of blocks.
  cache_control: hint('prompt cache breakpoints (cache_control)'),
  'source:file': capability('a file uploaded to the Anthropic Files API'),
  'source:url': capability('a document fetched by Anthropic from a URL'),
  'source:content': capability('a document made of content blocks'),
  citations: capability('a document with citations'),
  // Tools, by type without its date (`web_search_20250305` → `tool:web_search`).
  'tool:custom': carried('a client tool'),
  'tool:web_search': hint('the web_search server tool (the model answers without it)'),
  'tool:web_fetch': hint('the web_fetch server tool (the model answers without it)'),
  'tool:code_execution': capability('the code_execution server tool'),
  'tool:bash': capability('the Anthropic-defined bash tool'),
  'tool:text_editor': capability('the Anthropic-defined text_editor tool'),
  'tool:computer': capability('the Anthropic-defined computer tool'),
  'tool:memory': capability('the Anthropic-defined memory tool'),
  'tool:tool_search_tool_regex': capability('the tool_search server tool'),
  'tool:tool_search_tool_bm25': capability('the tool_search server tool'),
  'tool:mcp_toolset': capability('an MCP toolset'),
  // Headers.
  'header:anthropic-beta': hint('Anthropic beta features (anthropic-beta)'),
};

/** A tool's table key: its type without the version date. */
export function toolKey(type: string): string {
  return `tool:${type.replace(/_\d{8}$/, '')}`;
}
