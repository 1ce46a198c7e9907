/**
 * Who may share a cached answer. A cache hit is an answer paid for by someone else and the
 * text of someone else's conversation, so by default only the same gateway key reads what it
 * stored; `team` shares within a team (keys without one keep their own), `global` shares with
 * every caller. Requests without a caller (the library, a gateway without keys) share one scope.
 */
import type { CallerIdentity } from '@switchyard/core';

export type CacheShare = 'key' | 'team' | 'global';

export function cacheScope(caller: CallerIdentity | undefined, share: CacheShare): string {
  if (!caller || share === 'global') return '';
  if (share === 'team' && caller.team !== undefined) return `team:${caller.team}`;
  return `key:${caller.keyId}`;
}
