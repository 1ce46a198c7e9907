/**
 * Responses tools another vendor can run, and their calls back in the client's terms. A custom
 * tool (Codex's `apply_patch`: free text, often with a grammar) becomes a function taking one
 * string `input`, its grammar in the description; its calls come back as `custom_tool_call`
 * items. A namespace's tools become functions named `namespace__name` (reversible: the map
 * below), whose calls come back as `function_call` items with their `namespace`.
 */
import type { ToolDefinition } from '@switchyard/core';
import type { ItemStatus, Json, ResponseItem } from './wire-types.js';

/** What a unified function name stands for, when it is not a plain function of that name. */
export interface ToolOrigin {
  kind: 'custom' | 'function';
  name: string;
  namespace?: string;
}

/** Unified function name → the client's tool (only names that differ from a plain function). */
export type ToolNames = Map<string, ToolOrigin>;

export const NAMESPACE_SEPARATOR = '__';

export function flatName(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;
}

/** A custom tool as a function taking one string. */
export function customToolFunction(tool: Json, name: string): ToolDefinition {
  const format = tool.format as Json | undefined;
  let description = typeof tool.description === 'string' ? tool.description : '';
  let input = 'The raw text input of the tool.';
  if (format && format.type === 'grammar' && typeof format.definition === 'string') {
    const syntax = typeof format.syntax === 'string' ? format.syntax : 'lark';
    input = `The raw text input of the tool; it must match this ${syntax} grammar.`;
    description += `${description ? '\n\n' : ''}The input must be written in this ${syntax} grammar:\n${format.definition}`;
  }
  const fn: ToolDefinition['function'] = {
    name,
    parameters: { type: 'object', properties: { input: { type: 'string', description: input } }, required: ['input'], additionalProperties: false },
  };
  if (description) fn.description = description;
  return { type: 'function', function: fn };
}

/** The arguments of a custom tool call as the unified function call carries them. */
export function customCallArguments(input: string): string {
  return JSON.stringify({ input });
}

/** The string input a custom tool call's unified arguments hold (the arguments themselves when they are not our object). */
export function customCallInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Json).input === 'string') return (parsed as Json).input as string;
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return args;
}

/** A call of the unified function `flat` as the client's item: `function_call` (with its namespace) or `custom_tool_call`. */
export function callItemOf(id: string, callId: string, flat: string, args: string, status: ItemStatus, names: ToolNames | undefined): ResponseItem {
  const origin = names?.get(flat);
  if (origin?.kind === 'custom') {
    const item: ResponseItem = { id, type: 'custom_tool_call', status, call_id: callId, name: origin.name, input: customCallInput(args) };
    if (origin.namespace) item.namespace = origin.namespace;
    return item;
  }
  const item: ResponseItem = { id, type: 'function_call', status, arguments: args, call_id: callId, name: origin?.name ?? flat };
  if (origin?.namespace) item.namespace = origin.namespace;
  return item;
}

/** True when calls of `flat` come back as `custom_tool_call` items. */
export function isCustomTool(flat: string | undefined, names: ToolNames | undefined): boolean {
  return flat !== undefined && names?.get(flat)?.kind === 'custom';
}
