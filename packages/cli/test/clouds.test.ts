/**
 * `switchyard validate` and `check` for cloud channels: missing region / project / location and
 * unreadable key files are config errors naming the field; a valid config says where each
 * endpoint's credentials will come from; `check` proves Bedrock credentials with a free
 * CountTokens call that the fake Bedrock verifies (SigV4 checked independently).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { capture, configFile, removeTempDirs } from './support.js';
import { startFakeBedrock, type FakeBedrock } from '../../../plugins/provider-bedrock/test/support/fake-bedrock.js';

const ENV = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE', 'GOOGLE_APPLICATION_CREDENTIALS', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION'];
let saved: Record<string, string | undefined>;
let bedrock: FakeBedrock | undefined;
beforeEach(() => {
  saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
});
afterEach(async () => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await bedrock?.close();
  bedrock = undefined;
  await removeTempDirs();
});

describe('validate: cloud endpoints', () => {
  it('names a missing region, project, location and a key file that is not there', async () => {
    const file = await configFile(`endpoints:
  - { name: bedrock-us, provider: bedrock }
  - { name: vertex-eu, provider: vertex, options: { keyFile: /nonexistent/sa.json } }
models:
  claude:
    - { endpoint: bedrock-us, model: us.anthropic.claude-sonnet-4-5-20250929-v1:0 }
    - { endpoint: vertex-eu, model: claude-sonnet-4-5@20250929 }
`);
    const c = capture();
    expect(await main(['validate', '-c', file], c.io)).toBe(1);
    expect(c.err).toContain('endpoints[0] (bedrock-us).region: bedrock needs a region');
    expect(c.err).toContain('endpoints[1] (vertex-eu).project: vertex needs a Google Cloud project');
    expect(c.err).toContain('endpoints[1] (vertex-eu).location: vertex needs a location');
    expect(c.err).toContain('endpoints[1] (vertex-eu).options.keyFile: no credentials file at /nonexistent/sa.json');
  });

  it('refuses a malformed region or location in the schema', async () => {
    const file = await configFile(`endpoints:
  - { name: bedrock-us, provider: bedrock, region: "US East" }
models:
  claude: [{ endpoint: bedrock-us, model: anthropic.claude-sonnet-4-5-20250929-v1:0 }]
`);
    const c = capture();
    expect(await main(['validate', '-c', file], c.io)).toBe(1);
    expect(c.err).toMatch(/endpoints\[0\]\.region: expected an AWS region like us-east-1/);
  });

  it('says which credential source each cloud endpoint will use', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDVALIDATE0001';
    process.env.AWS_SECRET_ACCESS_KEY = 'validate-secret';
    const file = await configFile(`endpoints:
  - { name: bedrock-us, provider: bedrock, region: us-east-1 }
  - { name: vertex-eu, provider: vertex, project: my-project, location: europe-west1 }
models:
  claude:
    - { endpoint: bedrock-us, model: us.anthropic.claude-sonnet-4-5-20250929-v1:0 }
    - { endpoint: vertex-eu, model: claude-sonnet-4-5@20250929 }
`);
    const c = capture();
    expect(await main(['validate', '-c', file], c.io)).toBe(0);
    expect(c.out).toContain('bedrock-us: credentials from environment (AWS_ACCESS_KEY_ID)');
    expect(c.out).toMatch(/vertex-eu: credentials from (Application Default Credentials|metadata server)/);
    expect(c.out + c.err).not.toContain('validate-secret');
  });
});

describe('check: cloud endpoints', () => {
  it('proves Bedrock credentials with a free CountTokens call, and says so when they are wrong', async () => {
    bedrock = await startFakeBedrock({ keys: { AKIDCHECK00000001: { secretAccessKey: 'check-secret' } } });
    process.env.AWS_ACCESS_KEY_ID = 'AKIDCHECK00000001';
    process.env.AWS_SECRET_ACCESS_KEY = 'check-secret';
    const file = await configFile(`endpoints:
  - { name: bedrock-us, provider: bedrock, region: us-east-1, baseUrl: "${bedrock.url}" }
models:
  claude: [{ endpoint: bedrock-us, model: us.anthropic.claude-sonnet-4-5-20250929-v1:0 }]
`);
    const ok = capture();
    expect(await main(['check', '-c', file], ok.io)).toBe(0);
    expect(ok.out).toMatch(/bedrock-us\s+\|?\s*bedrock\s+\|?\s*yes\s+\|?\s*\d+ ms\s+\|?\s*ok/);
    expect(bedrock.seen.map((s) => s.operation)).toEqual(expect.arrayContaining(['count-tokens', 'invoke']));
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-secret';
    const bad = capture();
    expect(await main(['check', '-c', file], bad.io)).toBe(1);
    expect(bad.out).toMatch(/bedrock-us\s+\|?\s*bedrock\s+\|?\s*yes\s+\|?\s*\d+ ms\s+\|?\s*failed/);
  });
});
