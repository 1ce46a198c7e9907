/**
 * The gateway's route table: every dialect's routes by path pattern. Literal paths are one map
 * lookup (the hot routes); patterns (`/v1beta/models/{model}:generateContent`, `/v1/responses/{id*}`)
 * are tried most specific first. A method and path several dialects serve (`GET /v1/models`) goes
 * to the first dialect whose route claims the request by its headers, else to the one that
 * claims nothing.
 */
import type { DialectHeaders, DialectRouteV1, DialectV1 } from '@switchyard/core/dialect';

export interface RouteMatch {
  dialect: DialectV1;
  /** The route for the request's method; undefined when the path exists for other methods only. */
  route: DialectRouteV1 | undefined;
  /** The methods the path accepts (the `allow` header of a 405). */
  readonly allowed: readonly string[];
  /** The `{name}` segments of the path, as they were in the URL. */
  readonly params: Readonly<Record<string, string>>;
}

interface Served {
  dialect: DialectV1;
  route: DialectRouteV1;
}

interface PathEntry {
  /** The dialect errors on this path are written in (the first to serve it). */
  dialect: DialectV1;
  byMethod: Map<string, Served[]>;
  allowed: string[];
}

interface Pattern {
  regex: RegExp;
  names: string[];
  /** Literal characters: the more, the more specific. */
  weight: number;
  entry: PathEntry;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

function compile(path: string): { regex: RegExp; names: string[]; weight: number } {
  const names: string[] = [];
  let source = '';
  let weight = 0;
  let last = 0;
  for (const m of path.matchAll(/\{(\w+)(\*)?\}/g)) {
    const literal = path.slice(last, m.index);
    source += literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    weight += literal.length;
    names.push(m[1]!);
    source += m[2] ? '(.+)' : '([^/]+?)';
    last = m.index! + m[0].length;
  }
  const tail = path.slice(last);
  weight += tail.length;
  source += tail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { regex: new RegExp(`^${source}$`), names, weight };
}

export class DialectRoutes {
  private readonly exact = new Map<string, PathEntry>();
  private readonly patterns: Pattern[] = [];

  constructor(dialects: readonly DialectV1[]) {
    const byPattern = new Map<string, Pattern>();
    for (const dialect of dialects) {
      for (const route of dialect.routes) {
        const literal = !route.path.includes('{');
        let entry = literal ? this.exact.get(route.path) : byPattern.get(route.path)?.entry;
        if (!entry) {
          entry = { dialect, byMethod: new Map(), allowed: [] };
          if (literal) this.exact.set(route.path, entry);
          else {
            const pattern = { ...compile(route.path), entry };
            byPattern.set(route.path, pattern);
            this.patterns.push(pattern);
          }
        }
        const served = entry.byMethod.get(route.method);
        if (!served) {
          entry.byMethod.set(route.method, [{ dialect, route }]);
          entry.allowed.push(route.method);
        } else if (served.some((s) => !s.route.claims) && !route.claims) {
          throw new Error(`two dialects serve ${route.method} ${route.path}`);
        } else {
          served.push({ dialect, route });
          // Claiming routes are asked first; the one that claims nothing takes the rest.
          served.sort((a, b) => Number(!a.route.claims) - Number(!b.route.claims));
        }
      }
    }
    this.patterns.sort((a, b) => b.weight - a.weight);
  }

  match(method: string, path: string, headers: DialectHeaders, query: URLSearchParams): RouteMatch | undefined {
    const exact = this.exact.get(path);
    if (exact) return matchOf(exact, method, NO_PARAMS, headers, query);
    let first: RouteMatch | undefined;
    for (const pattern of this.patterns) {
      const m = pattern.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      pattern.names.forEach((name, i) => (params[name] = m[i + 1]!));
      const found = matchOf(pattern.entry, method, params, headers, query);
      if (found.route) return found;
      first ??= found;
    }
    return first;
  }

  /** The dialect whose paths start like this one (for errors on unknown URLs in the client's own shape). */
  dialectNear(path: string): DialectV1 | undefined {
    for (const [known, entry] of this.exact) if (path.startsWith(`${known}/`)) return entry.dialect;
    return undefined;
  }
}

function matchOf(entry: PathEntry, method: string, params: Readonly<Record<string, string>>, headers: DialectHeaders, query: URLSearchParams): RouteMatch {
  const served = entry.byMethod.get(method);
  const chosen = served && (served.length === 1 ? served[0] : served.find((s) => !s.route.claims || s.route.claims(headers, query)));
  return { dialect: chosen?.dialect ?? entry.dialect, route: chosen?.route, allowed: entry.allowed, params };
}
