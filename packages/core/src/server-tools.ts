/**
 * The tools a vendor runs itself and bills per call (Anthropic's `web_search_20250305`, OpenAI's
 * hosted `web_search`, `file_search`…), as the client offered them in its own body: any tool
 * whose type is not `function` / `custom`. The reservation bounds their calls and prices each
 * offered kind; the settlement prices the calls that ran by the same entries (usage-cost.ts).
 */
import type { RequestContext } from './contract.js';
import { requestOriginOf } from './request-origin.js';

export interface OfferedServerTool {
  /** The tool's type without a version date (`web_search_20250305` → `web_search`, `web_search_preview_2025_03_11` → `web_search_preview`). */
  kind: string;
  /** The client's tool object (its `max_uses`…). */
  tool: Readonly<Record<string, unknown>>;
}

export function toolKindOf(type: string): string {
  return type.replace(/_\d{8}$|_\d{4}_\d{2}_\d{2}$/, '');
}

/** Server tools in the client's own request body (none for a request without one). */
export function serverToolsOffered(request: RequestContext['request']): OfferedServerTool[] {
  const tools = (requestOriginOf(request)?.body as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  const out: OfferedServerTool[] = [];
  for (const tool of tools) {
    const type = (tool as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || type === 'function' || type === 'custom') continue;
    out.push({ kind: toolKindOf(type), tool: tool as Record<string, unknown> });
  }
  return out;
}

/** The kinds of `serverToolsOffered`. */
export function serverToolKindsOffered(request: RequestContext['request']): string[] {
  return serverToolsOffered(request).map((t) => t.kind);
}
