import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { commandWords, parseDockerfile } from './dockerfile.js';
import { CONFIG_PATH, drainSeconds, existsInRepo, productionConfig, readRepo, readYaml, tool } from './support.js';

const compose = readYaml('docker-compose.yml');
const prometheus = readYaml('deploy/prometheus.yml');
const gateways = Object.entries<Record<string, any>>(compose.services).filter(([, s]) => s.image === 'switchyard:local');
const port = productionConfig().server!.port;

/** Secrets are git-ignored; the repository ships `<file>.example` for each. */
const existsOrExample = (file: string) => existsInRepo(file) || existsInRepo(`${file}.example`);
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1]);

describe('docker-compose.yml', () => {
  it('runs two gateway replicas built from the Dockerfile, one Redis and Prometheus', () => {
    expect(gateways.map(([name]) => name)).toEqual(['gateway-1', 'gateway-2']);
    expect(Object.keys(compose.services).sort()).toEqual(['gateway-1', 'gateway-2', 'postgres', 'prometheus', 'redis']);
    for (const [, gateway] of gateways) {
      expect(existsInRepo(path.join(gateway.build.context, gateway.build.dockerfile))).toBe(true);
      expect(gateway.depends_on.redis.condition).toBe('service_healthy');
      expect(new URL(gateway.environment.REDIS_URL).hostname).toBe('redis');
    }
  });

  it('mounts files that exist: the production config where the image reads it, the env file, the Prometheus config and key', () => {
    const cmd = parseDockerfile(readRepo('Dockerfile')).stages[1].instructions.find((i) => i.keyword === 'CMD')!;
    expect(commandWords(cmd.args)).toContain(CONFIG_PATH);
    for (const [name, service] of Object.entries<Record<string, any>>(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const [source, target, mode] = String(volume).split(':');
        // A named volume (durable data of Redis and PostgreSQL) is the engine's, not a file of the repo.
        if (source in (compose.volumes ?? {})) continue;
        expect(existsInRepo(source), `${name}: ${source}`).toBe(true);
        expect(mode, `${name}: ${volume}`).toBe('ro');
        if (gateways.some(([g]) => g === name)) expect(target).toBe(CONFIG_PATH);
      }
      for (const envFile of service.env_file ?? []) expect(existsOrExample(envFile), `${name}: ${envFile}`).toBe(true);
    }
    for (const secret of Object.values<{ file: string }>(compose.secrets)) expect(existsOrExample(secret.file), secret.file).toBe(true);
    expect(existsInRepo('deploy/secrets.env.example')).toBe(true);
    expect(readRepo('.gitignore')).toMatch(/^deploy\/secrets\.env$/m);
  });

  it('publishes each replica on the config port and gives it longer than the drain to stop', () => {
    const published = gateways.map(([, g]) => String(g.ports[0]).split(':'));
    for (const [, , container] of published) expect(Number(container)).toBe(port);
    expect(new Set(published.map(([, host]) => host)).size).toBe(2);
    for (const [, g] of gateways) expect(seconds(g.stop_grace_period)).toBeGreaterThanOrEqual(drainSeconds());
  });

  it('has Prometheus scrape every replica on the config port with the gateway key', () => {
    const job = prometheus.scrape_configs[0];
    expect(job.static_configs[0].targets).toEqual(gateways.map(([name]) => `${name}:${port}`));
    const service = compose.services.prometheus;
    expect(service.volumes).toContain('./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(service.secrets.map((s: { target: string }) => s.target)).toContain(job.authorization.credentials_file);
  });
});

const promtool = tool('promtool');

describe.skipIf(!promtool)('deploy/prometheus.yml', () => {
  it('passes promtool check config (with the key file in place)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-prometheus-'));
    try {
      const key = path.join(dir, 'switchyard-api-key');
      writeFileSync(key, 'sk-test\n');
      const config = structuredClone(prometheus);
      config.scrape_configs[0].authorization.credentials_file = key;
      writeFileSync(path.join(dir, 'prometheus.yml'), stringify(config));
      expect(execFileSync('promtool', ['check', 'config', path.join(dir, 'prometheus.yml')], { encoding: 'utf8' })).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.yml: durable records', () => {
  it('runs Redis with persistence on a volume, and PostgreSQL (tenants profile) on a volume with a health check', () => {
    const redis = compose.services.redis;
    const words: string[] = redis.command;
    expect(words[words.indexOf('--appendonly') + 1]).toBe('yes');
    expect(words).not.toContain('--save');
    expect(redis.volumes).toContain('redis-data:/data');
    const postgres = compose.services.postgres;
    expect(postgres.profiles).toEqual(['tenants']);
    expect(postgres.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(postgres.healthcheck.test).toContain('pg_isready');
    expect(Object.keys(compose.volumes).sort()).toEqual(['postgres-data', 'redis-data']);
    expect(readRepo('deploy/secrets.env.example')).toMatch(/^POSTGRES_PASSWORD=/m);
    // The production config names the record store in a comment the compose profile matches.
    expect(readRepo('deploy/switchyard.yaml')).toContain('#   use: "@switchyard/store-postgres"');
  });
});
