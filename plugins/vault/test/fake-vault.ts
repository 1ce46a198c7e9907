/**
 * A loopback HTTP fake of Vault's KV v2 read API and token self-renewal, the way Vault answers
 * them: `GET /v1/<mount>/data/<path>[?version=N]` with `X-Vault-Token`, versioned secrets,
 * `{"errors":[…]}` bodies for 403 / 404, `POST /v1/auth/token/renew-self`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeVault {
  address: string;
  /** Writes a new version of `mount/path` (KV v2 `data`), returns its number. */
  put(mount: string, path: string, data: Record<string, unknown>): number;
  /** Soft-deletes a version, as `vault kv delete -versions=N` does. */
  deleteVersion(mount: string, path: string, version: number): void;
  /** Tokens that may read; others get 403. */
  tokens: Set<string>;
  reads: { path: string; token?: string; namespace?: string }[];
  renewals: { token?: string }[];
  close(): Promise<void>;
}

interface Version {
  data: Record<string, unknown>;
  created: string;
  deleted: boolean;
}

export async function startFakeVault(tokens: string[]): Promise<FakeVault> {
  const secrets = new Map<string, Version[]>();
  const reads: FakeVault['reads'] = [];
  const renewals: FakeVault['renewals'] = [];
  const allowed = new Set(tokens);
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://vault');
    const token = req.headers['x-vault-token'] as string | undefined;
    if (req.method === 'POST' && url.pathname === '/v1/auth/token/renew-self') {
      renewals.push({ token });
      if (!token || !allowed.has(token)) return json(res, 403, { errors: ['permission denied'] });
      return json(res, 200, { auth: { client_token: token, lease_duration: 3600, renewable: true } });
    }
    const m = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !m) return json(res, 404, { errors: [] });
    reads.push({ path: `${m[1]}/${decodeURIComponent(m[2]!)}${url.search}`, token, namespace: req.headers['x-vault-namespace'] as string | undefined });
    if (!token || !allowed.has(token)) return json(res, 403, { errors: ['permission denied'] });
    const versions = secrets.get(`${m[1]}/${decodeURIComponent(m[2]!)}`);
    if (!versions) return json(res, 404, { errors: [] });
    const wanted = url.searchParams.has('version') ? Number(url.searchParams.get('version')) : versions.length;
    const v = versions[wanted - 1];
    if (!v) return json(res, 404, { errors: [] });
    const metadata = { created_time: v.created, custom_metadata: null, deletion_time: v.deleted ? v.created : '', destroyed: false, version: wanted };
    // A deleted version answers 404 with its metadata and no data, as Vault does.
    if (v.deleted) return json(res, 404, { data: { data: null, metadata } });
    json(res, 200, { request_id: 'r', lease_id: '', renewable: false, lease_duration: 0, data: { data: v.data, metadata }, wrap_info: null, warnings: null, auth: null });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    tokens: allowed,
    reads,
    renewals,
    put(mount, path, data) {
      const list = secrets.get(`${mount}/${path}`) ?? [];
      list.push({ data, created: new Date().toISOString(), deleted: false });
      secrets.set(`${mount}/${path}`, list);
      return list.length;
    },
    deleteVersion(mount, path, version) {
      const v = secrets.get(`${mount}/${path}`)?.[version - 1];
      if (v) v.deleted = true;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
