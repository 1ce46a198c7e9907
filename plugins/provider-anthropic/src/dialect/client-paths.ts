/**
 * Where a unified request's fields came from in the client's Messages body. Errors raised on
 * the unified request (a target that cannot express a part, a provider that refuses one) name
 * unified paths (`messages[3].content[1]`), which mean nothing to the client: the system prompt
 * became a message, tool results became messages of their own. The route decodes the body again
 * with a recorder only when such an error comes back, so the happy path records nothing.
 */
import { isSwitchyardError, requestOriginOf, UNEXPRESSIBLE_CODE } from '@switchyard/core';

/** Top-level unified fields under another name in the Messages API. */
const RENAMED: Readonly<Record<string, string>> = {
  max_completion_tokens: 'max_tokens',
  stop: 'stop_sequences',
  user: 'metadata.user_id',
  parallel_tool_calls: 'tool_choice.disable_parallel_tool_use',
};

const renamed = new WeakSet<object>();

export class PathRecorder {
  private readonly paths = new Map<string, string>();

  message(index: number, path: string, parts?: readonly string[], toolCalls?: readonly string[]): void {
    this.paths.set(`messages[${index}]`, path);
    parts?.forEach((part, j) => this.paths.set(`messages[${index}].content[${j}]`, part));
    toolCalls?.forEach((call, k) => this.paths.set(`messages[${index}].tool_calls[${k}]`, call));
  }

  tool(index: number, path: string): void {
    this.paths.set(`tools[${index}]`, path);
  }

  /** The client's path for a unified one: the longest recorded prefix (a deeper unified suffix names unified fields, so it goes). */
  clientPath(unified: string): string | undefined {
    const top = /^[a-z_]+/.exec(unified)?.[0];
    if (top && RENAMED[top]) return RENAMED[top] + unified.slice(top.length);
    for (let cut = unified.length; cut > 0; cut--) {
      const char = unified[cut];
      if (cut < unified.length && char !== '.' && char !== '[') continue;
      const found = this.paths.get(unified.slice(0, cut));
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

/**
 * The error with its path (and the path in its message) in the client's terms. When the client's
 * request has parts only Anthropic takes, an unexpressible error names one of them already.
 */
export function inClientTerms(error: unknown, request: object, record: () => PathRecorder): unknown {
  if (!isSwitchyardError(error) || error.path === undefined || renamed.has(error)) return error;
  if (error.code === UNEXPRESSIBLE_CODE && requestOriginOf(request)?.untranslatable?.length) return error;
  const unified = error.path;
  const client = record().clientPath(unified);
  if (client === undefined || client === unified) return error;
  // Renamed in place, once: duplicates of an idempotent request share their first one's error.
  error.message = error.message.split(unified).join(client);
  (error as { path?: string }).path = client;
  renamed.add(error);
  return error;
}
