/**
 * `switchyard demo`. The demo itself lives in ./demo/ (its own work item) and is loaded only
 * when asked for, so the other commands never pay for it. This file sits next to demo/ in
 * src/ and in dist/, so the relative specifier resolves in both.
 */
import { EXIT, type CliIO } from './io.js';
import type { Command } from './command.js';

export interface DemoModule {
  runDemo(options: { out: NodeJS.WritableStream | { write(text: string): unknown } }): Promise<unknown> | unknown;
}

const DEMO_SPECIFIER = './demo/index.js';

export type DemoLoader = () => Promise<Partial<DemoModule>>;

const loadDemo: DemoLoader = () => import(/* @vite-ignore */ DEMO_SPECIFIER);

function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  const message = (error as Error | undefined)?.message ?? '';
  return code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module|Failed to load url|does not exist/i.test(message);
}

export async function runDemoCommand(io: CliIO, load: DemoLoader = loadDemo): Promise<number> {
  let demo: Partial<DemoModule>;
  try {
    demo = await load();
  } catch (error) {
    if (!isMissingModule(error)) throw error;
    io.err.write('error: the demo is not part of this build of @switchyard/cli (missing ./demo/index.js)\n');
    return EXIT.FAILED;
  }
  if (typeof demo.runDemo !== 'function') {
    io.err.write('error: ./demo/index.js does not export runDemo()\n');
    return EXIT.FAILED;
  }
  await demo.runDemo({ out: io.out });
  return EXIT.OK;
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'Run the failover demo against local mock vendors',
  help: `Usage: switchyard demo

Starts mock vendors on loopback, breaks them in the ways real vendors break (429 storms,
overload, cut streams) and shows the pipeline answering anyway. Needs no keys or network.

Options:
  -h, --help            show this help`,
  options: {},
  run: (_values, io) => runDemoCommand(io),
};
