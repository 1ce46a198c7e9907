/**
 * A served config: the gateway plus its reload triggers (SIGHUP, the config file changing)
 * and shutdown signals (SIGTERM, SIGINT). A config that fails to load on reload is rejected,
 * logged, and the running one kept.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Clock } from '@switchyard/core';
import { createGateway, DEFAULT_DIALECTS, resolveServerOptions, type Gateway, type GatewayAddress, type Logger, type ServerOptions } from '@switchyard/gateway';
import { geminiDialect } from '@switchyard/provider-gemini/dialect';
import type { CliIO } from './io.js';
import { cliImporter } from './importer.js';
import { buildPipeline, type LoadedSetup } from './load-config.js';
import { readServedConfig } from './serve-arguments.js';
import { SecretWatch } from './secret-watch.js';
import { formatError } from './format-error.js';
import { createServeLogger, resolveLogLevel } from './serve-logger.js';

export interface ServeOptions {
  file: string;
  io: CliIO;
  /** `--env-file`: variables for the config, read again on every reload. */
  envFile?: string;
  /** Command-line overrides of the config's server section. */
  overrides?: Partial<Pick<ServerOptions, 'host' | 'port'>>;
  /** Reload when the config file changes (default true). */
  watch?: boolean;
  logger?: Logger;
  /** Milliseconds to let an editor finish writing before reloading (default 150). */
  debounceMs?: number;
  /** Where SIGHUP / SIGTERM / SIGINT arrive (default: the process). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** The clock external secret resolvers poll and renew on (default: the system clock). */
  clock?: Clock;
}

export interface RunningServer {
  gateway: Gateway;
  address: GatewayAddress;
  /** Loads the config again; resolves false (old config kept) when it is invalid. */
  reload(reason?: string): Promise<boolean>;
  stop(): Promise<void>;
  /** Resolves once the server stopped (after a signal or stop()). */
  readonly stopped: Promise<void>;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { io } = options;
  const secretSet = new Set<string>();
  // One frozen list until a reload adds to it: the log masker then skips re-reading it per line.
  let secretList: readonly string[] = Object.freeze([]);
  const addSecrets = (values: Iterable<string>) => {
    for (const value of values) secretSet.add(value);
    if (secretSet.size !== secretList.length) secretList = Object.freeze([...secretSet]);
  };
  const secrets = () => secretList;
  const overrides = options.overrides ?? {};
  const setup = await readServedConfig({ file: options.file, envFile: options.envFile, overrides }, io, options.file, options.clock);
  addSecrets(setup.secrets);
  const configPaths: readonly string[] = Object.freeze([setup.file]);
  /** The loaded config in use: its external secret resolvers stay open while it serves. */
  let current: LoadedSetup = setup;
  const serveLogger = options.logger ? undefined : createServeLogger({ out: io.out, secrets, ownText: () => configPaths, level: resolveLogLevel(io.env, setup.config.server?.logLevel) });
  const logger = options.logger ?? serveLogger!;
  // Every client API the bundled providers speak: the gateway takes dialects as the pipeline takes providers.
  const gateway = createGateway({ config: setup.config, server: overrides, logger, secrets, dialects: [...DEFAULT_DIALECTS, geminiDialect], pipelineOptions: { importer: cliImporter(path.dirname(setup.file)) } });
  const address = await gateway.listen();
  const started = gateway.options;

  let chain: Promise<unknown> = Promise.resolve();
  const reload = (reason = 'manual'): Promise<boolean> => {
    // Reloads run one after the other: a burst of file events must not interleave swaps.
    const run = chain.then(async () => {
      try {
        const next = await readServedConfig({ file: setup.file, envFile: options.envFile, overrides }, io, setup.file, options.clock);
        addSecrets(next.secrets);
        const server = resolveServerOptions(next.config.server, overrides);
        try {
          // The gateway's store carries breakers, budgets, health, cache and usage over the reload.
          const pipeline = await buildPipeline(next, { store: gateway.store });
          try {
            gateway.reload(pipeline, { apiKeys: server.apiKeys, adminKeys: server.adminKeys });
          } catch (error) {
            await pipeline.close();
            throw error;
          }
        } catch (error) {
          await next.external.close();
          throw error;
        }
        const previous = current;
        current = next;
        watchSecrets();
        await previous.external.close();
        if (JSON.stringify(next.config.store) !== JSON.stringify(setup.config.store)) logger.warn({ event: 'reload' }, 'store changes apply after a restart; the running store is kept');
        if (server.host !== started.host || server.port !== started.port) logger.warn({ host: started.host, port: started.port }, 'server.host and server.port changes apply after a restart');
        logger.info({ event: 'reload', ok: true, reason, file: setup.file }, 'config reloaded');
        return true;
      } catch (error) {
        logger.error({ event: 'reload', ok: false, reason, error: formatError(error).trim() }, 'config reload rejected; the running config stays');
        gateway.reloadRejected(error);
        return false;
      }
    });
    chain = run;
    return run;
  };

  // A rotated secret file or a new version in a secret store reloads like a config change.
  let secretWatch: SecretWatch | undefined;
  const watchSecrets = () => {
    secretWatch?.close();
    if (!(options.watch ?? true)) return;
    secretWatch = new SecretWatch(current.secretFiles, current.external, {
      debounceMs: options.debounceMs ?? 150,
      onChange: (what) => void reload(`secret change: ${what}`),
      onError: (error, source) => logger.warn({ event: 'secret_watch_failed', source, error: error.message }, 'checking a secret for a new version failed; the running keys stay'),
    });
  };
  watchSecrets();

  let watcher: FSWatcher | undefined;
  let debounce: ReturnType<typeof setTimeout> | undefined;
  if (options.watch ?? true) {
    // Watching the folder catches editors that replace the file instead of writing it in place.
    watcher = watch(path.dirname(setup.file), (_event, name) => {
      if (name !== path.basename(setup.file)) return;
      clearTimeout(debounce);
      debounce = setTimeout(() => void reload('file change'), options.debounceMs ?? 150);
    });
  }

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping: Promise<void> | undefined;
  const onHangup = () => void reload('SIGHUP');
  const terminate = (signal: string) => {
    logger.info({ event: 'shutdown', signal, inFlight: gateway.inFlight }, 'shutting down');
    void stop();
  };
  const onTerm = () => terminate('SIGTERM');
  const onInt = () => terminate('SIGINT');
  const stop = () =>
    (stopping ??= (async () => {
      signals.off('SIGHUP', onHangup);
      signals.off('SIGTERM', onTerm);
      signals.off('SIGINT', onInt);
      clearTimeout(debounce);
      watcher?.close();
      await chain;
      secretWatch?.close();
      await gateway.close();
      await current.external.close();
      // Every access line of the requests that just finished is written before serve returns.
      serveLogger?.flushLines();
      resolveStopped();
    })());
  const signals = options.signals ?? process;
  signals.on('SIGHUP', onHangup);
  signals.on('SIGTERM', onTerm);
  signals.on('SIGINT', onInt);

  return { gateway, address, reload, stop, stopped };
}
