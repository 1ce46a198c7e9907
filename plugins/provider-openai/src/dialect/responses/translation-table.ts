/**
 * The Responses dialect's translation policy: what becomes of each field, input item, content
 * part and tool type when a Responses request goes to a vendor of another API (core's
 * `TranslationTable`; docs/agents.md shows the same table). A Responses API vendor gets the
 * client's body as it came, whatever the table says.
 */
import type { TableEntry, TranslationTable } from '@switchyard/core/dialect';

const carried = (what: string): TableEntry => ({ treatment: 'carried', what });
const hint = (what: string): TableEntry => ({ treatment: 'hint', what });
const capability = (what: string): TableEntry => ({ treatment: 'capability', what });

export const RESPONSES_TABLE: TranslationTable = {
  // Top-level fields.
  model: carried('the model'),
  input: carried('the input items'),
  instructions: carried('the instructions (a system message)'),
  tools: carried('the tools'),
  tool_choice: carried('the tool choice'),
  parallel_tool_calls: carried('parallel tool calls'),
  reasoning: carried('the reasoning effort (its summary setting is dropped)'),
  max_output_tokens: carried('the output cap'),
  temperature: carried('temperature'),
  top_p: carried('top_p'),
  text: carried('the output format (its verbosity is dropped)'),
  metadata: carried('metadata'),
  user: carried('the end user id'),
  stream: carried('streaming'),
  store: carried("storage of the answer (the gateway's store)"),
  previous_response_id: carried('a stored conversation (the gateway expands it)'),
  switchyard: carried("the gateway's own hints"),
  background: carried('background mode (refused: the gateway answers while the client waits)'),
  stream_options: hint('stream options'),
  include: hint('extra output to include (encrypted reasoning, logprobs)'),
  prompt_cache_key: hint('a prompt cache key'),
  prompt_cache_retention: hint('a prompt cache retention'),
  service_tier: hint('a service tier'),
  truncation: hint('a truncation strategy'),
  safety_identifier: hint('a safety identifier'),
  client_metadata: hint('client metadata'),
  max_tool_calls: hint('a cap on hosted tool calls'),
  top_logprobs: hint('logprobs'),
  context_management: hint('context management (server-side compaction)'),
  'reasoning.summary': hint('reasoning summaries'),
  'text.verbosity': hint('output verbosity'),
  conversation: capability('an OpenAI conversation'),
  prompt: capability('a stored prompt template'),
  // Input items.
  'item:message': carried('a message'),
  'item:function_call': carried('a function call (a namespaced one by its flattened name)'),
  'item:function_call_output': carried('a function call output'),
  'item:reasoning': carried('a reasoning item (as reasoning; encrypted content stays with OpenAI)'),
  'item:custom_tool_call': carried('a custom tool call (a call of a function taking one string)'),
  'item:custom_tool_call_output': carried('a custom tool call output'),
  'item:additional_tools': carried('tools offered in the input (ordinary tools)'),
  'item:web_search_call': hint('a hosted web search made earlier (its results are left out)'),
  'item:item_reference': capability('an item_reference (an item stored by OpenAI)'),
  'item:file_search_call': capability('a file_search_call item'),
  'item:computer_call': capability('a computer_call item'),
  'item:computer_call_output': capability('a computer_call_output item'),
  'item:image_generation_call': capability('an image_generation_call item'),
  'item:code_interpreter_call': capability('a code_interpreter_call item'),
  'item:local_shell_call': capability('a local_shell_call item'),
  'item:local_shell_call_output': capability('a local_shell_call_output item'),
  'item:shell_call': capability('a shell_call item'),
  'item:shell_call_output': capability('a shell_call_output item'),
  'item:apply_patch_call': capability('an apply_patch_call item'),
  'item:apply_patch_call_output': capability('an apply_patch_call_output item'),
  'item:mcp_list_tools': capability('an mcp_list_tools item'),
  'item:mcp_approval_request': capability('an mcp_approval_request item'),
  'item:mcp_approval_response': capability('an mcp_approval_response item'),
  'item:mcp_call': capability('an mcp_call item'),
  'item:tool_search_call': capability('a tool_search_call item'),
  'item:tool_search_output': capability('a tool_search_output item'),
  'item:compaction': capability('a compaction item (encrypted by OpenAI)'),
  'item:compaction_trigger': capability('a compaction_trigger item'),
  'item:program': capability('a program item'),
  'item:program_output': capability('a program_output item'),
  // Content parts.
  'part:input_text': carried('text'),
  'part:output_text': carried('text'),
  'part:refusal': carried('a refusal'),
  'part:input_image': carried('an image by URL or data URL'),
  'part:input_file': carried('a file by data'),
  'part:input_audio': capability('an audio input'),
  'source:file_id': capability('a file given by OpenAI file id'),
  'source:file_url': capability('a file given by URL'),
  'part:tool_output_media': capability('a function_call_output with images or files'),
  // Tools.
  'tool:function': carried('a function tool'),
  'tool:custom': carried('a custom tool (a function taking one string; its grammar in the description)'),
  'tool:namespace': carried('a namespace of tools (flattened to namespace__name)'),
  'tool:web_search': hint('the hosted web_search tool (the model answers without it)'),
  'tool:web_search_preview': hint('the hosted web_search tool (the model answers without it)'),
  'tool:file_search': capability('the hosted file_search tool'),
  'tool:code_interpreter': capability('the hosted code_interpreter tool'),
  'tool:computer_use_preview': capability('the computer use tool'),
  'tool:computer': capability('the computer use tool'),
  'tool:image_generation': capability('the hosted image_generation tool'),
  'tool:mcp': capability('a remote MCP server'),
  'tool:local_shell': capability('the local_shell tool'),
  'tool:shell': capability('the shell tool'),
  'tool:apply_patch': capability('the apply_patch tool'),
  'tool:tool_search': capability('the tool_search tool'),
  'tool_choice:hosted': capability('a tool_choice naming a hosted tool or allowed_tools'),
};

/** A tool's table key: its type without a version date (`web_search_preview_2025_03_11` → `tool:web_search_preview`). */
export function toolKey(type: string): string {
  return `tool:${type.replace(/_\d{4}_\d{2}_\d{2}$/, '')}`;
}
