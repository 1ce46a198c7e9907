/**
 * The admin API behind the gateway's `/switchyard/keys` and `/switchyard/teams` routes (the
 * gateway checks the admin key and hands each call here):
 *
 *   POST   /switchyard/keys                create (201: the key and its secret, shown once)
 *   GET    /switchyard/keys                list (?team=, ?status=active|expired|revoked)
 *   GET    /switchyard/keys/{id}           show
 *   GET    /switchyard/keys/{id}/usage     spend per window, limits now, the ledger's totals
 *   PATCH  /switchyard/keys/{id}           update (null clears a field)
 *   POST   /switchyard/keys/{id}/rotate    a new secret ({ graceSeconds } keeps the old one that long)
 *   POST   /switchyard/keys/{id}/revoke    revoke (also DELETE /switchyard/keys/{id})
 *   GET    /switchyard/teams               teams with their budgets and spend
 *   GET    /switchyard/teams/{name}        one team
 *   PATCH  /switchyard/teams/{name}        { budget } (null: back to the config's)
 *
 * Every write is one compare-and-set of one document, so concurrent writes on several gateways
 * never leave a key half-written, and each one reaches the other gateways' caches by pub/sub.
 */
import { TENANT_ERRORS, type AdminAnswer, type AdminCall, type UsageQueryService } from '@switchyard/contracts';
import { SwitchyardError, type Clock } from '@switchyard/core';
import { configError } from '@switchyard/core/config';
import type { z } from 'zod';
import { levelOf, type BudgetAlerts } from './budget-alerts.js';
import { fromMicros, PERIODS, windowOf, type Period } from './budget-windows.js';
import type { KeyDirectory, TeamRecord } from './key-directory.js';
import type { DeclaredEntry } from './key-check.js';
import { fieldsOf, RECORD_VERSION, viewOf, type KeyRecord, type KeyView } from './key-record.js';
import { isKeyId, newKeyId, newSecret } from './key-secret.js';
import { keyFieldsSchema, keyUpdateSchema, rotateSchema, teamSchema, type Budget, type TenantsOptions } from './options.js';
import type { ScopeSpend, SpendCounters, SpendScope } from './reservations.js';

export interface AdminDeps {
  directory: KeyDirectory;
  counters: SpendCounters;
  declared: readonly DeclaredEntry[];
  teams: TenantsOptions['teams'];
  clock: Clock;
  alerts: BudgetAlerts;
  usage: () => UsageQueryService | undefined;
}

type Handler = (deps: AdminDeps, call: AdminCall, id: string | undefined) => Promise<AdminAnswer>;

const ROUTES: { method: string; pattern: RegExp; handle: Handler }[] = [
  { method: 'POST', pattern: /^\/switchyard\/keys$/, handle: createKey },
  { method: 'GET', pattern: /^\/switchyard\/keys$/, handle: listKeys },
  { method: 'GET', pattern: /^\/switchyard\/keys\/([^/]+)$/, handle: showKey },
  { method: 'GET', pattern: /^\/switchyard\/keys\/([^/]+)\/usage$/, handle: keyUsage },
  { method: 'PATCH', pattern: /^\/switchyard\/keys\/([^/]+)$/, handle: updateKey },
  { method: 'POST', pattern: /^\/switchyard\/keys\/([^/]+)\/rotate$/, handle: rotateKey },
  { method: 'POST', pattern: /^\/switchyard\/keys\/([^/]+)\/revoke$/, handle: revokeKey },
  { method: 'DELETE', pattern: /^\/switchyard\/keys\/([^/]+)$/, handle: revokeKey },
  { method: 'GET', pattern: /^\/switchyard\/teams$/, handle: listTeams },
  { method: 'GET', pattern: /^\/switchyard\/teams\/([^/]+)$/, handle: showTeam },
  { method: 'PATCH', pattern: /^\/switchyard\/teams\/([^/]+)$/, handle: updateTeam },
];

export function adminApi(deps: AdminDeps): (call: AdminCall) => Promise<AdminAnswer> {
  return async (call) => {
    let pathMatched = false;
    for (const route of ROUTES) {
      const match = route.pattern.exec(call.path);
      if (!match) continue;
      pathMatched = true;
      if (route.method !== call.method) continue;
      return route.handle(deps, call, match[1] === undefined ? undefined : decoded(match[1]));
    }
    const allowed = ROUTES.filter((r) => r.pattern.test(call.path)).map((r) => r.method);
    if (pathMatched) throw notFound(`no admin route ${call.method} ${call.path}: it accepts ${allowed.join(', ')}`);
    throw notFound(`no admin route ${call.method} ${call.path} (see the plugin-tenants README)`);
  };
}

/* ------------------------------------------------------------------ keys */

async function createKey(deps: AdminDeps, call: AdminCall): Promise<AdminAnswer> {
  const spec = parse(keyFieldsSchema, call.body);
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  for (;;) {
    const id = newKeyId();
    const { presented, hash } = newSecret(id);
    const record: KeyRecord = { v: RECORD_VERSION, id, hash, ...fieldsOf(spec), createdAt: at, updatedAt: at };
    await deps.directory.addToIndex('keys', id);
    const { written } = await deps.directory.updateKey(id, (current) => (current === undefined ? record : undefined));
    // A random 64-bit id that is already taken: draw another.
    if (!written) continue;
    return { status: 201, body: { key: viewOf(record, 'api', now), secret: presented } };
  }
}

async function listKeys(deps: AdminDeps, call: AdminCall): Promise<AdminAnswer> {
  const now = deps.clock.now();
  const views = [...deps.declared.map((d) => declaredView(d, now)), ...(await deps.directory.listKeys()).map((r) => viewOf(r, 'api', now))];
  const { team, status } = call.query;
  const shown = views.filter((v) => (team === undefined || v.team === team) && (status === undefined || v.status === status));
  return { status: 200, body: { keys: shown } };
}

async function showKey(deps: AdminDeps, _call: AdminCall, id: string | undefined): Promise<AdminAnswer> {
  const found = await findKey(deps, id!);
  return { status: 200, body: found.view };
}

async function keyUsage(deps: AdminDeps, call: AdminCall, id: string | undefined): Promise<AdminAnswer> {
  const found = await findKey(deps, id!);
  const now = deps.clock.now();
  const view = found.view;
  const counts = await deps.counters.read('key', view.id, now);
  const team = view.team === null ? null : await teamUsage(deps, view.team, now);
  const ledger = deps.usage();
  const totals = ledger ? await ledger.answer({ since: call.query.since, until: call.query.until, groupBy: 'gatewayKey' }) : undefined;
  const line = totals as { since: string; until: string; groups: Record<string, unknown> } | undefined;
  return {
    status: 200,
    body: {
      key: view,
      spend: spendView(view.budget, counts, now),
      team,
      limits: {
        rpm: { used: counts.rpm, limit: view.limits.rpm ?? null },
        tpm: { used: counts.tpm, limit: view.limits.tpm ?? null },
        concurrency: { inFlight: counts.inFlight, limit: view.limits.concurrency ?? null },
      },
      ledger: line ? { since: line.since, until: line.until, usage: line.groups[view.id] ?? null } : null,
    },
  };
}

async function updateKey(deps: AdminDeps, call: AdminCall, id: string | undefined): Promise<AdminAnswer> {
  const update = parse(keyUpdateSchema, call.body);
  const now = deps.clock.now();
  const record = await changeKey(deps, id!, (current) => {
    const next: Record<string, unknown> = { ...current };
    for (const [field, value] of Object.entries(update)) {
      if (value === null) delete next[field];
      else if (value !== undefined) next[field] = value;
    }
    next.updatedAt = new Date(now).toISOString();
    return next as unknown as KeyRecord;
  });
  if (update.budget !== undefined) await reviewBudgets(deps, 'key', record.id, record.name, record.budget, now);
  return { status: 200, body: viewOf(record, 'api', now) };
}

async function rotateKey(deps: AdminDeps, call: AdminCall, id: string | undefined): Promise<AdminAnswer> {
  const { graceSeconds } = parse(rotateSchema, call.body ?? {});
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  const { presented, hash } = newSecret(id!);
  const record = await changeKey(deps, id!, (current) => {
    if (current.revokedAt !== undefined) throw conflict(`key ${current.id} is revoked; create a new key instead`);
    const next: KeyRecord = { ...current, hash, rotatedAt: at, updatedAt: at };
    if (graceSeconds > 0) next.previous = { hash: current.hash, until: new Date(now + graceSeconds * 1000).toISOString() };
    else delete next.previous;
    return next;
  });
  return { status: 200, body: { key: viewOf(record, 'api', now), secret: presented } };
}

async function revokeKey(deps: AdminDeps, _call: AdminCall, id: string | undefined): Promise<AdminAnswer> {
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  // The grace of a rotation ends with the key: no secret of it works any more.
  const record = await changeKey(deps, id!, ({ previous: _previous, ...current }) => (current.revokedAt !== undefined ? undefined : { ...current, revokedAt: at, updatedAt: at }));
  return { status: 200, body: viewOf(record, 'api', now) };
}

interface FoundKey {
  view: KeyView;
  declared?: DeclaredEntry;
}

async function findKey(deps: AdminDeps, id: string): Promise<FoundKey> {
  const now = deps.clock.now();
  const declared = deps.declared.find((d) => d.declared.id === id);
  if (declared) return { view: declaredView(declared, now), declared };
  const record = isKeyId(id) ? await deps.directory.readKey(id) : undefined;
  if (!record) throw notFound(`no key ${id}`);
  return { view: viewOf(record, 'api', now) };
}

/** Read-modify-write of a stored key; config-declared and unknown keys are refused with a coded error. */
async function changeKey(deps: AdminDeps, id: string, change: (current: KeyRecord) => KeyRecord | undefined): Promise<KeyRecord> {
  if (deps.declared.some((d) => d.declared.id === id)) throw conflict(`key ${id} is declared in the config (the options of @switchyard/plugin-tenants); change it there`);
  if (!isKeyId(id)) throw notFound(`no key ${id}`);
  const result = await deps.directory.updateKey(id, (current) => (current === undefined ? undefined : change(current)));
  if (!result.value) throw notFound(`no key ${id}`);
  return result.value;
}

function declaredView(d: DeclaredEntry, now: number): KeyView {
  const { secret: _secret, ...fields } = d.declared;
  return viewOf(fields, 'config', now);
}

/* ------------------------------------------------------------------ teams */

const TEAM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,127}$/;

/** The budget that applies to a team: the admin API's, else the config's. */
export function teamBudgetOf(stored: TeamRecord | undefined, teams: TenantsOptions['teams'], name: string): Budget | undefined {
  return stored?.budget ?? teams[name]?.budget;
}

async function teamUsage(deps: AdminDeps, name: string, now: number) {
  const stored = await deps.directory.team(name);
  const budget = teamBudgetOf(stored, deps.teams, name) ?? {};
  const counts = await deps.counters.read('team', name, now);
  return { name, budget, source: stored?.budget ? 'api' : deps.teams[name]?.budget ? 'config' : null, spend: spendView(budget, counts, now) };
}

async function listTeams(deps: AdminDeps): Promise<AdminAnswer> {
  const now = deps.clock.now();
  const names = new Set<string>(Object.keys(deps.teams));
  for (const t of await deps.directory.listTeams()) names.add(t.name);
  for (const d of deps.declared) if (d.declared.team !== undefined) names.add(d.declared.team);
  for (const r of await deps.directory.listKeys()) if (r.team !== undefined) names.add(r.team);
  const teams = await Promise.all([...names].sort().map((name) => teamUsage(deps, name, now)));
  return { status: 200, body: { teams } };
}

async function showTeam(deps: AdminDeps, _call: AdminCall, name: string | undefined): Promise<AdminAnswer> {
  return { status: 200, body: await teamUsage(deps, name!, deps.clock.now()) };
}

async function updateTeam(deps: AdminDeps, call: AdminCall, name: string | undefined): Promise<AdminAnswer> {
  const team = name!;
  if (!TEAM_NAME.test(team)) throw inputError('a team name is letters, digits and _ . @ : - only, starting with a letter or digit (at most 128)', 'team');
  const { budget } = parse(teamSchema, call.body);
  const now = deps.clock.now();
  await deps.directory.updateTeam(team, (current) => {
    const next: TeamRecord = { name: team, updatedAt: new Date(now).toISOString() };
    if (budget) next.budget = budget;
    return JSON.stringify(current?.budget) === JSON.stringify(next.budget) && current ? undefined : next;
  });
  const view = await teamUsage(deps, team, now);
  await reviewBudgets(deps, 'team', team, team, view.budget, now);
  return { status: 200, body: view };
}

/* ------------------------------------------------------------------ shared */

/** After a budget changed: alerts for where the spend now stands (a raised budget resolves its incident). */
async function reviewBudgets(deps: AdminDeps, scope: SpendScope['scope'], id: string, name: string, budget: Budget | undefined, now: number): Promise<void> {
  const counts = await deps.counters.read(scope, id, now);
  const spends: ScopeSpend[] = [];
  for (const period of PERIODS) {
    const window = windowOf(period, now);
    spends.push({ scope: { scope, id, name, label: name, window, counter: deps.counters.spendKey(scope, id, window), budget: budget?.[period] }, micros: counts[period] });
  }
  deps.alerts.observe(spends);
}

function spendView(budget: Budget, counts: Record<Period, number>, now: number) {
  const out: Record<string, unknown> = {};
  for (const period of PERIODS) {
    const window = windowOf(period, now);
    const b = budget[period];
    out[period] = {
      window: window.id,
      spentUsd: fromMicros(counts[period]),
      limitUsd: b?.limitUsd ?? null,
      soft: b?.soft ?? null,
      hard: b?.hard ?? null,
      level: b ? levelOf(b, counts[period]) : null,
      resetsAt: new Date(window.resetsAt).toISOString(),
    };
  }
  return out;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw inputError(`"${segment}" in the path is not valid percent-encoding`, 'path');
  }
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const described = configError(parsed.error, '', schema);
  throw inputError(described.message, described.path);
}

function inputError(message: string, path: string | undefined, status = 400): SwitchyardError {
  return new SwitchyardError('invalid-request', message, { code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_INPUT, status, path, retryable: false });
}

function notFound(message: string): SwitchyardError {
  return new SwitchyardError('invalid-request', message, { code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_NOT_FOUND, status: 404, retryable: false });
}

function conflict(message: string): SwitchyardError {
  return new SwitchyardError('invalid-request', message, { code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_CONFLICT, status: 409, retryable: false });
}
