import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandWords, parseCopy, parseDockerfile } from './dockerfile.js';
import { dockerIgnore } from './dockerignore.js';
import { CONFIG_PATH, PRODUCTION_CONFIG, ROOT, existsInRepo, productionConfig, readRepo } from './support.js';

const dockerfile = parseDockerfile(readRepo('Dockerfile'));
const [build, runtime] = dockerfile.stages;
const only = (stage: typeof build, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

describe('Dockerfile', () => {
  it('builds in one stage with the bundle script CI runs, and ships only the bundle', () => {
    expect(dockerfile.stages).toHaveLength(2);
    const arg = dockerfile.args.find((a) => a.args.startsWith('NODE_IMAGE='));
    expect(arg?.args).toMatch(/^NODE_IMAGE=node:20(\.\d+)*-(slim|bookworm-slim)$/);
    expect(build.from).toBe('${NODE_IMAGE}');
    expect(runtime.from).toBe('${NODE_IMAGE}');
    const bundleRun = only(build, 'RUN').find((r) => r.args.includes('deploy/bundle.sh'));
    expect(bundleRun?.args).toBe('bash deploy/bundle.sh /opt/switchyard');
    const fromBuild = only(runtime, 'COPY').map((c) => parseCopy(c.args)).filter((c) => c.from === build.name);
    expect(fromBuild).toEqual([{ from: build.name, sources: ['/opt/switchyard'], destination: '/opt/switchyard' }]);
  });

  it('copies only sources that exist and that .dockerignore lets into the context', () => {
    const ignored = dockerIgnore(readRepo('.dockerignore'));
    const sources = dockerfile.stages.flatMap((s) => only(s, 'COPY').map((c) => parseCopy(c.args))).filter((c) => !c.from).flatMap((c) => c.sources);
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) {
      expect(existsInRepo(source), source).toBe(true);
      if (source !== '.') expect(ignored(source), source).toBe(false);
    }
  });

  it('sends every tracked file but the compose file into the build context', () => {
    const ignored = dockerIgnore(readRepo('.dockerignore'));
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(tracked).toContain('deploy/bundle.sh');
    expect(tracked.filter(ignored)).toEqual(['docker-compose.yml']);
    for (const kept of ['pnpm-lock.yaml', 'deploy/server/package.json', 'deploy/secrets/switchyard-api-key.example']) expect(ignored(kept), kept).toBe(false);
    for (const dropped of ['node_modules/x', 'packages/core/dist/index.js', 'plugins/retry/node_modules/zod', 'deploy/secrets.env', 'deploy/secrets/switchyard-api-key', '.git/HEAD']) expect(ignored(dropped), dropped).toBe(true);
  });

  it('exposes the port of the shipped config and serves that config by default', () => {
    expect(only(runtime, 'EXPOSE').map((e) => e.args)).toEqual([String(productionConfig().server?.port)]);
    expect(only(runtime, 'COPY').map((c) => parseCopy(c.args))).toContainEqual({ sources: [PRODUCTION_CONFIG], destination: CONFIG_PATH });
    expect(commandWords(only(runtime, 'CMD')[0].args)).toEqual(['serve', '--config', CONFIG_PATH]);
  });

  it('runs as a non-root user under tini, which forwards SIGTERM and SIGHUP to node', () => {
    const user = only(runtime, 'USER').at(-1)!.args;
    expect(user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(only(runtime, 'RUN').some((r) => /apt-get install[^&]*\btini\b/.test(r.args) && r.args.includes(`--uid ${user.split(':')[0]}`))).toBe(true);
    expect(commandWords(only(runtime, 'ENTRYPOINT')[0].args)).toEqual(['/usr/bin/tini', '--', 'node', '/opt/switchyard/bin.js']);
  });

  it('checks health with node running the copied health check script', () => {
    const healthcheck = only(runtime, 'HEALTHCHECK')[0].args;
    const command = commandWords(healthcheck.slice(healthcheck.indexOf('CMD ') + 4));
    expect(command).toEqual(['node', '/opt/switchyard/healthcheck.mjs']);
    expect(only(runtime, 'COPY').map((c) => parseCopy(c.args))).toContainEqual({ sources: ['deploy/healthcheck.mjs'], destination: '/opt/switchyard/healthcheck.mjs' });
    expect(readRepo('deploy/healthcheck.mjs')).toContain(`'http://127.0.0.1:${productionConfig().server?.port}/health'`);
  });
});
