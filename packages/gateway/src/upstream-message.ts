/**
 * What an error message may tell a gateway client. By default the client does not learn which
 * vendor, endpoint or deployment stands behind the gateway: the provider prefix ("openai
 * answered 400: ") goes, and a failure everywhere is summarised by kind and status only. The
 * vendor's own reason stays (it is what the caller needs to fix a request).
 * `server.exposeUpstream: true` keeps the full message.
 */
import type { SwitchyardError } from '@switchyard/core';

export interface ErrorReplyOptions {
  exposeUpstream?: boolean;
}

const SKIPPED_NOTE = '; skipped before any attempt: ';

const PROVIDER_PREFIX = /^[\w.@/-]+ (?:answered \d{3}|stream failed): /;

export function clientMessage(error: SwitchyardError, options: ErrorReplyOptions): string {
  if (options.exposeUpstream) return error.message;
  if (error.kind === 'all-candidates-failed') {
    // "<why> for model "chat": <deployment>: <kind> <status>; …" without the deployments.
    const attempts = error.attempts ?? [];
    const summary = attempts.map((a) => `${a.kind}${a.status ? ` ${a.status}` : ''}`).join('; ');
    const cut = error.message.indexOf('": ');
    const head = cut >= 0 ? error.message.slice(0, cut + 1) : `all ${attempts.length} attempt(s) failed`;
    // Deployments the translation policy skipped are named, as the 400 of a request none can take names them.
    const at = error.message.indexOf(SKIPPED_NOTE);
    const skipped = at >= 0 ? error.message.slice(at) : '';
    return (summary ? `${head}: ${summary}` : head) + skipped;
  }
  return error.message.replace(PROVIDER_PREFIX, '');
}
