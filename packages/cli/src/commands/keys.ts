/**
 * `switchyard keys`: the gateway's virtual keys (@switchyard/plugin-tenants) through its admin
 * API, without a restart: create, list, show, usage, update, rotate, revoke; team budgets.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { substituteVariables } from '@switchyard/core';
import { parseDocument } from 'yaml';
import type { Command, OptionValues } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { readTextFile } from '../read-text-file.js';
import { renderTable } from '../table.js';

const SUBCOMMANDS = ['create', 'list', 'show', 'usage', 'update', 'rotate', 'revoke', 'teams', 'team'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

export const keysCommand: Command = {
  name: 'keys',
  summary: 'Manage virtual keys (plugin-tenants) on a running gateway: create, list, usage, rotate, revoke',
  positionals: true,
  help: `Usage: switchyard keys <command> [<id>] [options]

Talks to a running gateway's admin API (/switchyard/keys, /switchyard/teams) with an admin key
(server.adminKeys). The gateway needs @switchyard/plugin-tenants in its plugins.

Commands:
  create               a new key; its secret is printed once (the gateway keeps a hash only)
  list                 every key (--team, --status to filter)
  show <id>            one key
  usage <id>           spend today and this month against its budgets, its team's, limits now,
                       and the usage ledger's totals (--since, --until)
  update <id>          change fields (the create options; --clear <field> removes one)
  rotate <id>          a new secret (--grace keeps the old one working for a while)
  revoke <id>          refuse the key from now on, on every gateway within a second
  teams                every team with its budget and spend
  team <name>          one team; with --budget, set its budget (--clear budget: back to the config's)

Key options (create, update):
      --name <name>         a name for the key (create: required)
      --team <team>         the team it belongs to (budgets roll up by team)
      --owner <who>         who holds it
      --models <list>       logical models it may call, comma-separated, * globs ('gpt-4o*,chat')
      --budget <usd/period> a budget, e.g. 50/month or 5/day (repeat for both)
      --soft <share>        alert at this share of a budget (default 0.8)
      --hard <share>        refuse past this share of a budget (default 1)
      --rpm <n>             requests a minute
      --tpm <n>             tokens a minute
      --concurrency <n>     requests in flight at once
      --expires <when>      an ISO time, or a duration from now (30d, 12h, 90m)
      --tag <name=value>    a tag every request carries (repeat)
      --tier <tier>         the routing tier of its requests
      --clear <field>       update: remove a field (models, budget, limits, expiresAt, tags, team, owner, tier)

Other options:
      --grace <duration>    rotate: the old secret works this long too (e.g. 10m, 1h; default 0)
      --status <status>     list: active, expired or revoked
      --since, --until <day> usage: the ledger's days (default the last 30)
      --url <url>           the gateway (default: server.host and server.port of --config)
  -c, --config <file>       config file to find the gateway in (default: ./switchyard.yaml)
      --admin-key <key>     an admin key (default: $SWITCHYARD_ADMIN_KEY)
      --json                print the admin API's JSON answer
  -h, --help                show this help`,
  options: {
    config: { type: 'string', short: 'c', default: 'switchyard.yaml' },
    url: { type: 'string' },
    'admin-key': { type: 'string' },
    json: { type: 'boolean', default: false },
    name: { type: 'string' },
    team: { type: 'string' },
    owner: { type: 'string' },
    models: { type: 'string' },
    budget: { type: 'string', multiple: true },
    soft: { type: 'string' },
    hard: { type: 'string' },
    rpm: { type: 'string' },
    tpm: { type: 'string' },
    concurrency: { type: 'string' },
    expires: { type: 'string' },
    tag: { type: 'string', multiple: true },
    tier: { type: 'string' },
    clear: { type: 'string', multiple: true },
    grace: { type: 'string' },
    status: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
  },
  async run(values, io, positionals) {
    const [sub, id, ...extra] = positionals;
    if (!SUBCOMMANDS.includes(sub as Subcommand)) return usageError(io, sub === undefined ? 'a command is needed' : `unknown command "${sub}"`);
    const needsId = !['create', 'list', 'teams'].includes(sub);
    if (needsId && !id) return usageError(io, `"keys ${sub}" needs ${sub === 'team' ? 'a team name' : 'a key id'}`);
    if (extra.length > 0 || (!needsId && id)) return usageError(io, `unexpected argument "${needsId ? extra[0] : id}"`);
    const adminKey = (values['admin-key'] as string | undefined) ?? io.env.SWITCHYARD_ADMIN_KEY;
    if (!adminKey) return usageError(io, 'an admin key is needed: --admin-key <key> or SWITCHYARD_ADMIN_KEY (one of server.adminKeys)');
    let request: AdminRequest;
    let base: string;
    try {
      request = requestFor(sub as Subcommand, id, values, Date.now());
      base = await gatewayUrl(values, io);
    } catch (error) {
      if (error instanceof UsageError) return usageError(io, error.message);
      throw error;
    }
    let res: Response;
    try {
      res = await fetch(base + request.path, { method: request.method, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, body: request.body === undefined ? undefined : JSON.stringify(request.body) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      io.err.write(`error: cannot reach the gateway at ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}\n`);
      return EXIT.FAILED;
    }
    const text = await res.text();
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      io.err.write(`error: the gateway answered ${res.status} with something other than JSON\n`);
      return EXIT.FAILED;
    }
    if (!res.ok) {
      const e = (answer as { error?: { message?: string; code?: string } }).error;
      io.err.write(`error: ${e?.message ?? `the gateway answered ${res.status}`}${e?.code ? ` (${e.code})` : ''}\n`);
      return EXIT.FAILED;
    }
    io.out.write(values.json ? `${JSON.stringify(answer, null, 2)}\n` : formatAnswer(sub as Subcommand, answer));
    return EXIT.OK;
  },
};

class UsageError extends Error {}

function usageError(io: CliIO, message: string): number {
  io.err.write(`error: ${message}\n\nRun "switchyard keys --help" for the commands and options.\n`);
  return EXIT.USAGE;
}

interface AdminRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
}

function requestFor(sub: Subcommand, id: string | undefined, values: OptionValues, now: number): AdminRequest {
  const key = id === undefined ? '' : encodeURIComponent(id);
  switch (sub) {
    case 'create': {
      const fields = keyFields(values, now);
      if (fields.name === undefined) throw new UsageError('"keys create" needs --name <name>');
      return { method: 'POST', path: '/switchyard/keys', body: fields };
    }
    case 'list':
      return { method: 'GET', path: `/switchyard/keys${query({ team: values.team, status: values.status })}` };
    case 'show':
      return { method: 'GET', path: `/switchyard/keys/${key}` };
    case 'usage':
      return { method: 'GET', path: `/switchyard/keys/${key}/usage${query({ since: values.since, until: values.until })}` };
    case 'update': {
      const fields: Record<string, unknown> = keyFields(values, now);
      for (const field of (values.clear as string[] | undefined) ?? []) fields[field] = null;
      if (Object.keys(fields).length === 0) throw new UsageError('"keys update" needs a field to change (see --help)');
      return { method: 'PATCH', path: `/switchyard/keys/${key}`, body: fields };
    }
    case 'rotate':
      return { method: 'POST', path: `/switchyard/keys/${key}/rotate`, body: { graceSeconds: values.grace === undefined ? 0 : Math.round(durationMs(values.grace as string, '--grace') / 1000) } };
    case 'revoke':
      return { method: 'POST', path: `/switchyard/keys/${key}/revoke`, body: {} };
    case 'teams':
      return { method: 'GET', path: '/switchyard/teams' };
    case 'team': {
      const budget = budgetOf(values);
      const clear = ((values.clear as string[] | undefined) ?? []).includes('budget');
      if (budget === undefined && !clear) return { method: 'GET', path: `/switchyard/teams/${key}` };
      return { method: 'PATCH', path: `/switchyard/teams/${key}`, body: { budget: clear ? null : budget } };
    }
  }
}

function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (typeof value === 'string') search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The key fields the options give (only those given, so an update changes nothing else). */
function keyFields(values: OptionValues, now: number): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of ['name', 'team', 'owner', 'tier'] as const) if (typeof values[name] === 'string') fields[name] = values[name];
  if (typeof values.models === 'string') fields.models = values.models.split(',').map((m) => m.trim()).filter(Boolean);
  const budget = budgetOf(values);
  if (budget) fields.budget = budget;
  const limits: Record<string, number> = {};
  for (const name of ['rpm', 'tpm', 'concurrency'] as const) if (values[name] !== undefined) limits[name] = wholeNumber(values[name] as string, `--${name}`);
  if (Object.keys(limits).length > 0) fields.limits = limits;
  if (typeof values.expires === 'string') fields.expiresAt = /^\d+[smhd]$/.test(values.expires) ? new Date(now + durationMs(values.expires, '--expires')).toISOString() : values.expires;
  const tags = values.tag as string[] | undefined;
  if (tags?.length) {
    fields.tags = Object.fromEntries(
      tags.map((tag) => {
        const eq = tag.indexOf('=');
        if (eq <= 0) throw new UsageError(`--tag takes name=value, got "${tag}"`);
        return [tag.slice(0, eq), tag.slice(eq + 1)];
      }),
    );
  }
  return fields;
}

/** `--budget 50/month --budget 5/day` with `--soft` / `--hard` shares for each. */
function budgetOf(values: OptionValues): Record<string, unknown> | undefined {
  const given = values.budget as string[] | undefined;
  if (!given?.length) return undefined;
  const budget: Record<string, unknown> = {};
  for (const text of given) {
    const match = /^\$?(\d+(?:\.\d+)?)\s*\/\s*(day|month|d|mo)$/i.exec(text.trim());
    if (!match) throw new UsageError(`--budget takes <usd>/<day|month>, e.g. 50/month, got "${text}"`);
    const period = match[2].toLowerCase().startsWith('d') ? 'day' : 'month';
    const window: Record<string, number> = { limitUsd: Number(match[1]) };
    if (values.soft !== undefined) window.soft = share(values.soft as string, '--soft');
    if (values.hard !== undefined) window.hard = share(values.hard as string, '--hard');
    budget[period] = window;
  }
  return budget;
}

function share(text: string, option: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${option} takes a share of the budget such as 0.8, got "${text}"`);
  return n;
}

function wholeNumber(text: string, option: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${option} takes a positive whole number, got "${text}"`);
  return n;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function durationMs(text: string, option: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  if (!match) throw new UsageError(`${option} takes a duration such as 90s, 10m, 12h or 30d, got "${text}"`);
  return Number(match[1]) * UNIT_MS[match[2] || 's'];
}

/**
 * `--url`, else server.host and server.port of the config (a wildcard host is reached on
 * loopback), else the default port. Only those two fields are read and substituted: an admin
 * needs the gateway's address, not the vendors' secrets the rest of the config refers to.
 */
async function gatewayUrl(values: OptionValues, io: CliIO): Promise<string> {
  if (typeof values.url === 'string') return values.url.replace(/\/+$/, '').replace(/\/v1$/, '');
  const file = path.resolve(io.cwd, values.config as string);
  let host = '127.0.0.1';
  let port = 8787;
  if (existsSync(file)) {
    try {
      const doc = parseDocument(await readTextFile(file, 'config file', 'SWITCHYARD_ERR_CONFIG_READ'));
      if (doc.errors.length > 0) throw doc.errors[0];
      const server = (doc.toJS() as { server?: { host?: unknown; port?: unknown } } | null)?.server;
      const field = (name: 'host' | 'port') => {
        const value = server?.[name];
        return value === undefined ? undefined : substituteVariables(String(value), io.env, `server.${name}`, false, path.dirname(file));
      };
      const givenHost = field('host');
      const givenPort = field('port');
      if (givenPort !== undefined && !/^\d{1,5}$/.test(givenPort)) throw new Error(`server.port is not a port number: "${givenPort}"`);
      if (givenHost && !['0.0.0.0', '::', '[::]'].includes(givenHost)) host = givenHost;
      if (givenPort !== undefined) port = Number(givenPort);
    } catch (error) {
      throw new UsageError(`cannot read the gateway's address from ${file} (${(error as Error).message.split('\n')[0]}); pass --url`);
    }
  }
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/* ------------------------------------------------------------------ output */

interface KeyViewLike {
  id: string;
  name: string;
  team: string | null;
  status: string;
  source: string;
  models: string[] | null;
  budget: Record<string, { limitUsd: number } | undefined>;
  limits: Record<string, number | undefined>;
  expiresAt: string | null;
  previousSecretUntil: string | null;
}

interface WindowLike {
  window: string;
  spentUsd: number;
  limitUsd: number | null;
  level: string | null;
  resetsAt: string;
}

const usd = (n: number | null | undefined) => (n === null || n === undefined ? '-' : `$${n.toFixed(4)}`);

function budgetText(budget: KeyViewLike['budget']): string {
  return Object.entries(budget)
    .filter(([, w]) => w)
    .map(([period, w]) => `${w!.limitUsd}/${period}`)
    .join(' ') || '-';
}

function keyLines(k: KeyViewLike): string {
  const limits = Object.entries(k.limits).map(([name, n]) => `${name} ${n}`).join(', ') || '-';
  return [
    `id        ${k.id}`,
    `name      ${k.name}`,
    `team      ${k.team ?? '-'}`,
    `status    ${k.status}${k.source === 'config' ? ' (declared in the config)' : ''}`,
    `models    ${k.models?.join(', ') ?? 'all'}`,
    `budget    ${budgetText(k.budget)}`,
    `limits    ${limits}`,
    `expires   ${k.expiresAt ?? 'never'}`,
    ...(k.previousSecretUntil ? [`old secret works until ${k.previousSecretUntil}`] : []),
  ].join('\n');
}

function spendRows(label: string, spend: Record<string, WindowLike>): string[][] {
  return Object.entries(spend).map(([period, w]) => [label, period, w.window, usd(w.spentUsd), usd(w.limitUsd), w.level ?? '-', w.resetsAt]);
}

function formatAnswer(sub: Subcommand, answer: unknown): string {
  const a = answer as Record<string, any>;
  switch (sub) {
    case 'create':
    case 'rotate':
      return `${sub === 'create' ? 'created' : 'rotated'} key ${a.key.id} (${a.key.name}${a.key.team ? `, team ${a.key.team}` : ''})\nsecret (shown once; the gateway keeps only a hash): ${a.secret}\n`;
    case 'list':
      return renderTable(
        ['id', 'name', 'team', 'status', 'models', 'budget', 'expires'],
        (a.keys as KeyViewLike[]).map((k) => [k.id, k.name, k.team ?? '-', k.status, k.models?.join(',') ?? 'all', budgetText(k.budget), k.expiresAt ?? '-']),
      );
    case 'show':
    case 'update':
    case 'revoke':
      return `${keyLines(a as KeyViewLike)}\n`;
    case 'usage': {
      const rows = spendRows(`key ${a.key.id}`, a.spend);
      if (a.team) rows.push(...spendRows(`team ${a.team.name}`, a.team.spend));
      const limits = Object.entries(a.limits as Record<string, { used?: number; inFlight?: number; limit: number | null }>)
        .map(([name, l]) => `${name} ${l.used ?? l.inFlight}${l.limit === null ? '' : ` of ${l.limit}`}`)
        .join(', ');
      const ledger = a.ledger?.usage ? `ledger ${a.ledger.since} .. ${a.ledger.until}: ${a.ledger.usage.requests} requests, ${a.ledger.usage.failures} failures, ${usd(a.ledger.usage.costUsd)}\n` : '';
      return renderTable(['scope', 'period', 'window', 'spent', 'limit', 'level', 'resets'], rows) + `now: ${limits}\n` + ledger;
    }
    case 'teams':
      return renderTable(
        ['team', 'budget', 'day spent', 'month spent', 'source'],
        (a.teams as any[]).map((t) => [t.name, budgetText(t.budget), usd(t.spend.day.spentUsd), usd(t.spend.month.spentUsd), t.source ?? '-']),
      );
    case 'team':
      return `team ${a.name}: budget ${budgetText(a.budget)}${a.source ? ` (from the ${a.source === 'api' ? 'admin API' : 'config'})` : ''}\n` + renderTable(['scope', 'period', 'window', 'spent', 'limit', 'level', 'resets'], spendRows(`team ${a.name}`, a.spend));
  }
}
