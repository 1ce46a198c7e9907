/**
 * One client × path of the conformance suite: scripted loopback vendors, the gateway in front of
 * them (in process, every default dialect), a working folder with the notes the session reads, and
 * a temporary HOME, for one of the suite's paths (support/paths.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider } from '@switchyard/provider-openai';
import { GATEWAY_KEY, startGateway, vendor, type Loopback } from '../../../packages/gateway/test/support/harness.js';
import { CLIENT_MODELS, type Session } from './clients.js';
import { startDialGuard, proxyEnv, type DialGuard } from './dial-guard.js';
import { NOTES_MARKER, newScript, scriptedVendor, type Api, type Behaviour, type Script } from './scripted-vendor.js';

import type { PathName } from './paths.js';

/** The vendor of another API a client's requests fail over to. */
const FALLBACK_API: Record<Api, Api> = { anthropic: 'chat', responses: 'anthropic', chat: 'anthropic' };

interface Deployment {
  api: Api;
  behaviour: Behaviour;
}

function deploymentsFor(api: Api, path: PathName): Deployment[] {
  switch (path) {
    case 'pass-through':
      return [{ api, behaviour: 'answer' }];
    case 'failover':
      return [
        { api, behaviour: 'fail' },
        { api: FALLBACK_API[api], behaviour: 'answer' },
      ];
    case 'cut, continued':
      return [
        { api, behaviour: 'cut-once' },
        { api, behaviour: 'answer' },
      ];
    case 'cut, not continued':
      return [{ api, behaviour: 'cut-once' }];
  }
}

const VENDOR_KEYS: Record<Api, string> = { anthropic: 'sk-ant-vendor-0123456789', chat: 'sk-vendor-chat-0123456789', responses: 'sk-vendor-resp-0123456789' };

export interface Rig {
  session: Session;
  script: Script;
  /** The vendors in priority order. */
  vendors: (Loopback & { api: Api })[];
  guard: DialGuard;
  close(): Promise<void>;
}

export async function startRig(api: Api, path: PathName): Promise<Rig> {
  const cwd = mkdtempSync(join(tmpdir(), 'sy-agent-work-'));
  const home = mkdtempSync(join(tmpdir(), 'sy-agent-home-'));
  mkdirSync(join(home, '.config'), { recursive: true });
  const file = join(cwd, 'notes.txt');
  writeFileSync(file, `remember ${NOTES_MARKER}\n`);
  const script = newScript();
  const plan = deploymentsFor(api, path);
  const vendors = await Promise.all(plan.map(async (d, i) => Object.assign(await vendor(scriptedVendor(d.api, d.behaviour, script, file, `v${i}`)), { api: d.api })));
  const endpoints = vendors.map((v, i) => ({
    name: `${v.api}-${i}`,
    provider: v.api === 'anthropic' ? 'anthropic' : 'openai',
    baseUrl: v.url,
    apiKey: VENDOR_KEYS[v.api],
    ...(v.api === 'chat' ? { options: { responsesApi: false } } : {}),
  }));
  const deployments = endpoints.map((e) => ({ endpoint: e.name, model: 'vendor-model' }));
  const pipeline = createPipeline({
    endpoints,
    models: Object.fromEntries(CLIENT_MODELS.map((m) => [m, deployments])),
    providers: [anthropicProvider, openaiProvider],
  });
  const { origin } = await startGateway(pipeline);
  const guard = await startDialGuard();
  const dialLog = join(home, 'dials.log');
  writeFileSync(dialLog, '');
  const close = async () => {
    await guard.close();
    for (const dir of [cwd, home]) rmSync(dir, { recursive: true, force: true });
  };
  return { session: { origin, gatewayKey: GATEWAY_KEY, cwd, home, guardEnv: proxyEnv(guard), dialLog }, script, vendors, guard, close };
}
