/** The gateway's route table: every dialect's routes by path, and the prefixes that take an id. */
import type { Dialect, DialectRoute } from './dialect.js';

export interface RouteMatch {
  dialect: Dialect;
  /** The route for the request's method; undefined when the path exists for other methods only. */
  route: DialectRoute | undefined;
  /** The methods the path accepts (the `allow` header of a 405). */
  readonly allowed: readonly string[];
  /** The id after a prefix route's path. */
  param?: string;
}

interface PathEntry {
  dialect: Dialect;
  byMethod: Map<string, DialectRoute>;
  /** The methods of byMethod, listed once. */
  allowed: string[];
}

export class DialectRoutes {
  private readonly exact = new Map<string, PathEntry>();
  private readonly prefixes: [string, PathEntry][] = [];

  constructor(dialects: readonly Dialect[]) {
    for (const dialect of dialects) {
      for (const route of dialect.routes) {
        const prefix = route.path.endsWith('/');
        let entry = prefix ? this.prefixes.find(([p]) => p === route.path)?.[1] : this.exact.get(route.path);
        if (!entry) {
          entry = { dialect, byMethod: new Map(), allowed: [] };
          if (prefix) this.prefixes.push([route.path, entry]);
          else this.exact.set(route.path, entry);
        }
        if (entry.byMethod.has(route.method)) throw new Error(`two dialects serve ${route.method} ${route.path}`);
        entry.byMethod.set(route.method, route);
        entry.allowed.push(route.method);
      }
    }
    // The longest prefix wins.
    this.prefixes.sort((a, b) => b[0].length - a[0].length);
  }

  match(method: string, path: string): RouteMatch | undefined {
    const exact = this.exact.get(path);
    if (exact) return matchOf(exact, method);
    for (const [prefix, entry] of this.prefixes) {
      if (path.length > prefix.length && path.startsWith(prefix)) return matchOf(entry, method, path.slice(prefix.length));
    }
    return undefined;
  }

  /** The dialect whose paths start like this one (for errors on unknown URLs in the client's own shape). */
  dialectNear(path: string): Dialect | undefined {
    for (const [known, entry] of this.exact) if (path.startsWith(`${known}/`)) return entry.dialect;
    return undefined;
  }
}

function matchOf(entry: PathEntry, method: string, param?: string): RouteMatch {
  return { dialect: entry.dialect, route: entry.byMethod.get(method), allowed: entry.allowed, param };
}
