/**
 * HashiCorp Vault's KV secrets engine, version 2, as a Switchyard secret resolver:
 * `${vault:secret/switchyard/openai#api_key}` reads field `api_key` of the latest version of
 * `switchyard/openai` on the mount `secret` (`GET /v1/secret/data/switchyard/openai`, the
 * token in `X-Vault-Token`); `…?version=3#api_key` pins a version. `watch` polls the
 * unpinned ones every `pollMs` on the injected clock and reports a new version; with
 * `renewTokenMs` the token renews itself (`POST /v1/auth/token/renew-self`) on that period.
 */
import { Agent, request } from 'undici';
import { SwitchyardError, type Clock } from '@switchyard/core';
import { type SecretResolver, type SecretValue } from '@switchyard/core/config';
import type { VaultOptions } from './options.js';

interface Reference {
  mount: string;
  path: string;
  version?: number;
  field: string;
}

const REFERENCE_RE = /^([^#?]+?)\/*(?:\?version=(\d+))?#(.+)$/;

function secretError(message: string, cause?: unknown): SwitchyardError {
  return new SwitchyardError('config', message, { code: 'SWITCHYARD_ERR_CONFIG_SECRET', cause });
}

/** `mount/path[?version=N]#field`; with the `mount` option the whole path is under that mount. */
export function parseReference(reference: string, mount?: string): Reference {
  const m = REFERENCE_RE.exec(reference.trim());
  if (!m) throw secretError(`"${reference}" is not a Vault KV reference: expected mount/path#field or mount/path?version=N#field`);
  const full = m[1]!.replace(/^\/+/, '');
  const version = m[2] === undefined ? undefined : Number(m[2]);
  if (mount) return { mount: mount.replace(/^\/+|\/+$/g, ''), path: full, version, field: m[3]! };
  const slash = full.indexOf('/');
  if (slash <= 0) throw secretError(`"${reference}" names no mount: expected mount/path#field (or set the mount option)`);
  return { mount: full.slice(0, slash), path: full.slice(slash + 1), version, field: m[3]! };
}

interface KvReadBody {
  data?: { data?: Record<string, unknown> | null; metadata?: { version?: number; deletion_time?: string; destroyed?: boolean } };
  errors?: string[];
}

export class VaultKv implements SecretResolver {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000 });
  private readonly timers = new Set<ReturnType<Clock['setTimeout']>>();
  private reportError: ((error: SwitchyardError) => void) | undefined;
  private closed = false;

  constructor(
    private readonly options: VaultOptions,
    private readonly clock: Clock,
  ) {
    if (options.renewTokenMs) this.every(options.renewTokenMs, () => this.renewToken());
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'x-vault-token': this.options.token, accept: 'application/json' };
    if (this.options.namespace) headers['x-vault-namespace'] = this.options.namespace;
    return headers;
  }

  /** One request to Vault, on the injected clock's timeout; the error never carries the token. */
  private async call(method: 'GET' | 'POST', path: string, what: string): Promise<{ status: number; json: KvReadBody }> {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const res = await request(`${this.options.address.replace(/\/+$/, '')}${path}`, { method, headers: this.headers(), dispatcher: this.agent, signal: controller.signal });
      const text = await res.body.text();
      let json: KvReadBody = {};
      try {
        json = text ? (JSON.parse(text) as KvReadBody) : {};
      } catch {
        // Not JSON (a proxy's error page): the status says enough.
      }
      return { status: res.statusCode, json };
    } catch (cause) {
      const reason = controller.signal.aborted ? `no answer within ${this.options.timeoutMs} ms` : ((cause as NodeJS.ErrnoException).code ?? (cause as Error).message);
      throw secretError(`${what}: Vault at ${this.options.address} did not answer (${reason})`, cause);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  async read(reference: string): Promise<SecretValue> {
    const ref = parseReference(reference, this.options.mount);
    const query = ref.version === undefined ? '' : `?version=${ref.version}`;
    const where = `${ref.mount}/${ref.path}${query}`;
    const { status, json } = await this.call('GET', `/v1/${encodePath(ref.mount)}/data/${encodePath(ref.path)}${query}`, where);
    const reason = json.errors?.filter((e) => typeof e === 'string' && e).join('; ');
    if (status === 403) throw secretError(`${where}: permission denied (the token lacks a policy for it, or expired)${reason ? `: ${reason}` : ''}`);
    if (status === 404) throw secretError(`${where}: no such secret${ref.version !== undefined ? ' version' : ''} (or it was deleted)`);
    if (status !== 200) throw secretError(`${where}: Vault answered HTTP ${status}${reason ? `: ${reason}` : ''}`);
    const data = json.data?.data;
    if (!data) throw secretError(`${where}: the version was deleted or destroyed`);
    if (!Object.hasOwn(data, ref.field)) throw secretError(`${where}: no field "${ref.field}" (it has: ${Object.keys(data).join(', ') || 'none'})`);
    const value = data[ref.field];
    if (typeof value !== 'string' && typeof value !== 'number') throw secretError(`${where}#${ref.field}: expected a string, got ${value === null ? 'null' : typeof value}`);
    const version = json.data?.metadata?.version;
    return { value: String(value), version: version === undefined ? undefined : String(version) };
  }

  watch(read: ReadonlyMap<string, SecretValue>, onChange: (reference: string) => void, onError?: (error: SwitchyardError) => void): () => void {
    this.reportError = onError;
    // Pinned versions never change.
    const known = new Map([...read].filter(([reference]) => parseReference(reference, this.options.mount).version === undefined));
    if (known.size === 0) return () => undefined;
    const stop = this.every(this.options.pollMs, async () => {
      for (const [reference, seen] of known) {
        try {
          const now = await this.read(reference);
          if (now.version !== seen.version || now.value !== seen.value) {
            known.set(reference, now);
            onChange(reference);
          }
        } catch (error) {
          onError?.(error as SwitchyardError);
        }
      }
    });
    return () => {
      this.reportError = undefined;
      stop();
    };
  }

  private async renewToken(): Promise<void> {
    const { status, json } = await this.call('POST', '/v1/auth/token/renew-self', 'token renewal');
    if (status !== 200) {
      const reason = json.errors?.join('; ');
      this.reportError?.(secretError(`token renewal: Vault answered HTTP ${status}${reason ? `: ${reason}` : ''}`));
    }
  }

  /** Runs `work` every `ms` on the clock, one run at a time; unref'd, so an idle process can exit. */
  private every(ms: number, work: () => Promise<void>): () => void {
    let handle: ReturnType<Clock['setTimeout']> | undefined;
    let stopped = false;
    const arm = () => {
      if (stopped || this.closed) return;
      handle = this.clock.setTimeout(() => {
        this.timers.delete(handle!);
        work()
          .catch((error) => this.reportError?.(error as SwitchyardError))
          .finally(arm);
      }, ms);
      (handle as { unref?: () => void }).unref?.();
      this.timers.add(handle);
    };
    arm();
    return () => {
      stopped = true;
      if (handle !== undefined) {
        this.clock.clearTimeout(handle);
        this.timers.delete(handle);
      }
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) this.clock.clearTimeout(t);
    this.timers.clear();
    await this.agent.close();
  }
}

function encodePath(path: string): string {
  return path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}
