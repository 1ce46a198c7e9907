/**
 * The gateway the in-process contenders run (gateway-servers.ts) and the clock reads are counted
 * in (clock-reads.ts): `chat` on two openai-compatible deployments, and each other dialect's
 * pass-through pair (Messages → anthropic, Responses → openai, Gemini → gemini), on the
 * pipeline's own transport, as `switchyard serve` and library users get it (a dispatcher passed
 * in would skip its body-written tracking). The packages are imported when a gateway is made:
 * a contender that never makes one (the thin proxy) loads none of them.
 */
import { openSync, writeSync } from 'node:fs';
import type { Plugin } from '@switchyard/core';
import type { Gateway, Logger } from '@switchyard/gateway';

/** A gateway over the primary and secondary vendors (base URLs ending in /v1), listening on a loopback port. */
export async function startBenchGateway(first: string, second: string, plugins: Plugin[], logger?: Logger): Promise<{ gateway: Gateway; url: string }> {
  const { createPipeline } = await import('@switchyard/core');
  const { createGateway, DEFAULT_DIALECTS } = await import('@switchyard/gateway');
  const { providers: gemini } = await import('@switchyard/provider-gemini');
  const { geminiDialect } = await import('@switchyard/provider-gemini/dialect');
  const { providers: openaiFamily } = await import('@switchyard/provider-openai');
  const { providers: anthropic } = await import('@switchyard/provider-anthropic');
  const pair = (name: string, provider: string) => [
    { name: `${name}-primary`, provider, baseUrl: first },
    { name: `${name}-secondary`, provider, baseUrl: second },
  ];
  const deployments = (name: string) => [
    { endpoint: `${name}-primary`, model: 'bench-model' },
    { endpoint: `${name}-secondary`, model: 'bench-model' },
  ];
  const pipeline = createPipeline({
    endpoints: [...pair('chat', 'openai-compatible'), ...pair('claude', 'anthropic'), ...pair('gpt', 'openai'), ...pair('gemini', 'gemini')],
    models: { chat: deployments('chat'), claude: deployments('claude'), gpt: deployments('gpt'), gemini: deployments('gemini') },
    providers: [...openaiFamily, ...anthropic, ...gemini],
    plugins,
  });
  const gateway = createGateway({ pipeline, dialects: [...DEFAULT_DIALECTS, geminiDialect], server: { host: '127.0.0.1', port: 0, maxInFlight: 100_000 }, logger });
  return { gateway, url: (await gateway.listen()).url };
}

/** `switchyard serve`'s logger (its access line, masking and batched writes), writing to /dev/null. */
export async function benchServeLogger(): Promise<Logger> {
  const { createServeLogger } = await import('@switchyard/cli');
  const devNull = openSync('/dev/null', 'w');
  // An output with a file descriptor gets serve's own buffered destination, as stdout does.
  return createServeLogger({ out: { fd: devNull, write: (line: string) => writeSync(devNull, line) > 0 }, secrets: () => [], level: 'info' });
}
