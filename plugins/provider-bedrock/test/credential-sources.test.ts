/**
 * The AWS credential chain (@aws-sdk/credential-providers) for real, source by source, each
 * through a signed request the fake Bedrock verifies: environment, shared config and
 * credentials files with profiles, web identity through a loopback STS, ECS container
 * credentials and EC2 instance metadata; temporary credentials are refreshed before they expire
 * (the provider's clock is moved, the fakes' credentials are still valid when replaced).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPipeline, type ChatRequest, type Pipeline } from '@switchyard/core';
import { setRequestOrigin, ANTHROPIC_MESSAGES } from '@switchyard/core/wire';
import { createBedrockProvider, describeCredentialSource } from '../src/index.js';
import { claudeCodeBody } from './support/claude-code-shape.js';
import { startFakeAwsCredentials, type FakeAwsCredentials } from './support/fake-aws-credentials.js';
import { startFakeBedrock, type FakeBedrock } from './support/fake-bedrock.js';

const AWS_ENV = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_REGION', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_ARN', 'AWS_ROLE_SESSION_NAME', 'AWS_ENDPOINT_URL_STS', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_CONTAINER_AUTHORIZATION_TOKEN', 'AWS_EC2_METADATA_SERVICE_ENDPOINT', 'AWS_EC2_METADATA_DISABLED', 'AWS_STS_REGIONAL_ENDPOINTS'];
let saved: Record<string, string | undefined>;
let bedrock: FakeBedrock;
let issuer: FakeAwsCredentials;
let pipeline: Pipeline | undefined;
let dir: string;
let now: number;

beforeEach(async () => {
  saved = Object.fromEntries(AWS_ENV.map((k) => [k, process.env[k]]));
  for (const k of AWS_ENV) delete process.env[k];
  dir = mkdtempSync(path.join(tmpdir(), 'sy-aws-'));
  // No file or instance of the machine running the tests is ever used.
  process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(dir, 'no-credentials');
  process.env.AWS_CONFIG_FILE = path.join(dir, 'no-config');
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  process.env.AWS_REGION = 'us-east-1';
  bedrock = await startFakeBedrock();
  issuer = await startFakeAwsCredentials((id, secret) => bedrock.keys.set(id, secret));
  now = Date.now();
});
afterEach(async () => {
  for (const k of AWS_ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await pipeline?.close();
  pipeline = undefined;
  await Promise.all([bedrock.close(), issuer.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function bedrockPipeline(options: Record<string, unknown> = {}): Pipeline {
  pipeline = createPipeline({
    endpoints: [{ name: 'bedrock-us', provider: 'bedrock', region: 'us-east-1', baseUrl: bedrock.url, options }],
    models: { claude: [{ endpoint: 'bedrock-us', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
    // The provider's clock is the test's; the SDK's own cache treats 4-minute credentials as due, so the provider's cache decides.
    providers: [createBedrockProvider({ now: () => now, refreshBeforeMs: 60_000 })],
  });
  return pipeline;
}

function request(): ChatRequest {
  const unified: ChatRequest = { model: 'claude', messages: [{ role: 'user', content: 'hi' }] };
  setRequestOrigin(unified, { format: ANTHROPIC_MESSAGES, body: { ...claudeCodeBody(), stream: false }, headers: {} });
  return unified;
}

/** Two requests, the clock moved past the refresh point, a third: the keys Bedrock verified. */
async function trafficAcrossRefresh(): Promise<string[]> {
  await pipeline!.chat(request());
  await pipeline!.chat(request());
  now += issuer.lifetimeMs - 30_000;
  await pipeline!.chat(request());
  return bedrock.seen.map((s) => s.accessKeyId!);
}

describe('AWS credential sources', () => {
  it('environment variables', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDENVIRONMENT01';
    process.env.AWS_SECRET_ACCESS_KEY = 'env/secret/0123456789';
    bedrock.keys.set('AKIDENVIRONMENT01', { secretAccessKey: 'env/secret/0123456789' });
    bedrockPipeline();
    await pipeline!.chat(request());
    expect(bedrock.seen[0]!.accessKeyId).toBe('AKIDENVIRONMENT01');
    expect(describeCredentialSource({ name: 'b', provider: 'bedrock' })).toBe('environment (AWS_ACCESS_KEY_ID)');
  });

  it('shared credentials and config files, the endpoint’s profile chosen over the default', async () => {
    writeFileSync(process.env.AWS_SHARED_CREDENTIALS_FILE!, '[default]\naws_access_key_id = AKIDDEFAULTPROFILE\naws_secret_access_key = default-secret\n\n[bedrock-team]\naws_access_key_id = AKIDTEAMPROFILE01\naws_secret_access_key = team/secret/0123\n');
    writeFileSync(process.env.AWS_CONFIG_FILE!, '[default]\nregion = eu-west-1\n\n[profile bedrock-team]\nregion = us-east-1\n');
    bedrock.keys.set('AKIDDEFAULTPROFILE', { secretAccessKey: 'default-secret' });
    bedrock.keys.set('AKIDTEAMPROFILE01', { secretAccessKey: 'team/secret/0123' });
    bedrockPipeline({ profile: 'bedrock-team' });
    await pipeline!.chat(request());
    expect(bedrock.seen[0]!.accessKeyId).toBe('AKIDTEAMPROFILE01');
    expect(describeCredentialSource({ name: 'b', provider: 'bedrock', options: { profile: 'bedrock-team' } })).toBe('shared config profile "bedrock-team"');
  });

  it('web identity (IRSA) through STS at AWS_ENDPOINT_URL_STS, refreshed before expiry', async () => {
    const tokenFile = path.join(dir, 'web-identity-token');
    writeFileSync(tokenFile, issuer.webIdentityToken);
    process.env.AWS_WEB_IDENTITY_TOKEN_FILE = tokenFile;
    process.env.AWS_ROLE_ARN = 'arn:aws:iam::123456789012:role/switchyard';
    process.env.AWS_ROLE_SESSION_NAME = 'switchyard-test';
    process.env.AWS_ENDPOINT_URL_STS = issuer.url;
    bedrockPipeline();
    const keys = await trafficAcrossRefresh();
    expect(issuer.issued.map((c) => c.via)).toEqual(['sts', 'sts']);
    expect(keys).toEqual([issuer.issued[0]!.accessKeyId, issuer.issued[0]!.accessKeyId, issuer.issued[1]!.accessKeyId]);
    expect(describeCredentialSource({ name: 'b', provider: 'bedrock' })).toMatch(/^web identity \(arn:aws:iam::123456789012:role\/switchyard/);
  });

  it('ECS container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI), refreshed before expiry', async () => {
    process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `${issuer.url}/ecs/credentials`;
    process.env.AWS_CONTAINER_AUTHORIZATION_TOKEN = issuer.ecsAuthorization;
    bedrockPipeline();
    const keys = await trafficAcrossRefresh();
    expect(issuer.issued.map((c) => c.via)).toEqual(['ecs', 'ecs']);
    expect(keys).toEqual([issuer.issued[0]!.accessKeyId, issuer.issued[0]!.accessKeyId, issuer.issued[1]!.accessKeyId]);
    expect(describeCredentialSource({ name: 'b', provider: 'bedrock' })).toBe('ECS container credentials');
  });

  it('EC2 instance metadata with IMDSv2 tokens (AWS_EC2_METADATA_SERVICE_ENDPOINT), refreshed before expiry', async () => {
    delete process.env.AWS_EC2_METADATA_DISABLED;
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = issuer.url;
    bedrockPipeline();
    const keys = await trafficAcrossRefresh();
    expect(issuer.issued.map((c) => c.via)).toEqual(['imds', 'imds']);
    expect(keys).toEqual([issuer.issued[0]!.accessKeyId, issuer.issued[0]!.accessKeyId, issuer.issued[1]!.accessKeyId]);
    expect(issuer.refused).toEqual([]);
  });
});

describe('credentials AWS refuses', () => {
  it('a key AWS no longer recognises (revoked, expired early) drops the cached credentials: the next request fetches fresh ones', async () => {
    process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `${issuer.url}/ecs/credentials`;
    process.env.AWS_CONTAINER_AUTHORIZATION_TOKEN = issuer.ecsAuthorization;
    bedrockPipeline();
    await pipeline!.chat(request());
    // The session is revoked before its expiry: Bedrock no longer knows the key.
    bedrock.keys.delete(issuer.issued[0]!.accessKeyId);
    await expect(pipeline!.chat(request())).rejects.toMatchObject({ attempts: [{ kind: 'auth', vendorCode: 'UnrecognizedClientException' }] });
    await pipeline!.chat(request());
    expect(issuer.issued).toHaveLength(2);
    expect(bedrock.seen.at(-1)!.accessKeyId).toBe(issuer.issued[1]!.accessKeyId);
  });
});
