/**
 * Claude and Gemini on Vertex AI through the real pipeline and undici transport, authorised by
 * google-auth-library against a loopback Google (fake-google.ts) that checks the JWT grant's
 * signature and accepts only live tokens it issued.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPipeline, outcomeOf, type Pipeline } from '@switchyard/core';
import { toWireRequest, wireTextOf } from '@switchyard/core/wire';
import { createVertexProvider, describeGoogleCredentialSource, vertexBaseUrl } from '../src/index.js';
import { claudeCodeBody, claudeCodeRequest, collect, failureOf } from '../../provider-bedrock/test/support/claude-code-shape.js';
import { startFakeGoogle, type FakeGoogle } from './support/fake-google.js';

const ENV_KEYS = ['GOOGLE_APPLICATION_CREDENTIALS', 'GCE_METADATA_HOST', 'METADATA_SERVER_DETECTION', 'HOME', 'CLOUDSDK_CONFIG', 'GOOGLE_CLOUD_PROJECT'] as const;
let saved: Record<string, string | undefined>;
let google: FakeGoogle;
let pipeline: Pipeline | undefined;
let dir: string;

beforeEach(async () => {
  saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  dir = mkdtempSync(path.join(tmpdir(), 'sy-vertex-'));
  // No gcloud file of the machine running the tests is ever picked up.
  process.env.HOME = dir;
  process.env.CLOUDSDK_CONFIG = dir;
  delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
  delete process.env.GCE_METADATA_HOST;
  google = await startFakeGoogle();
});
afterEach(async () => {
  vi.useRealTimers();
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await pipeline?.close();
  pipeline = undefined;
  await google.close();
  rmSync(dir, { recursive: true, force: true });
});

function keyFile(overrides: Record<string, unknown> = {}): string {
  const file = path.join(dir, `sa-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ type: 'service_account', project_id: 'fake-project', client_id: '1', token_uri: `${google.url}/token`, ...google.serviceAccount, ...overrides }));
  return file;
}

function vertexPipeline(options: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}): Pipeline {
  pipeline = createPipeline({
    endpoints: [{ name: 'vertex-eu', provider: 'vertex', project: 'fake-project', location: 'europe-west1', baseUrl: `${google.url}/v1`, options, ...endpoint }],
    models: { claude: [{ endpoint: 'vertex-eu', model: 'claude-sonnet-4-5@20250929' }], gemini: [{ endpoint: 'vertex-eu', model: 'gemini-2.5-flash' }] },
    providers: [createVertexProvider()],
  });
  return pipeline;
}




describe('Claude on Vertex AI: rawPredict with the Messages body', () => {
  it('streams a Claude Code request through with a service-account token from the file’s own token_uri', async () => {
    vertexPipeline({ keyFile: keyFile() });
    const parts = await collect(await pipeline!.stream(claudeCodeRequest()));
    expect(google.tokenRequests).toEqual([{ via: 'jwt', ok: true }]);
    const seen = google.seen[0]!;
    expect(seen.path).toBe('/v1/projects/fake-project/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    const { model: _model, ...rest } = claudeCodeBody();
    expect(seen.body).toEqual({ anthropic_version: 'vertex-2023-10-16', ...rest, stream: true });
    expect(seen.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14,context-management-2025-06-27');
    const forwarded = parts.map((p) => wireTextOf(p) ?? '').join('');
    expect(forwarded).toContain('"type":"signature_delta"');
    expect(parts.find((p) => p.type === 'finish')).toMatchObject({ finishReason: 'tool_calls' });
  });

  it('a JWT signed with another key is refused by the token endpoint: a key failure, and Vertex is never called', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    vertexPipeline({ keyFile: keyFile({ private_key: other }) });
    const error = await failureOf(() => pipeline!.chat(claudeCodeRequest()));
    expect(error).toMatchObject({ kind: 'auth', provider: 'vertex' });
    expect(outcomeOf(error)).toBe('key-failure');
    expect(google.tokenRequests).toEqual([{ via: 'jwt', ok: false, reason: 'invalid JWT signature' }]);
    expect(google.seen).toHaveLength(0);
    expect(error.message).not.toContain('PRIVATE KEY');
  });

  it('refreshes the token before it expires, and fetches a new one when Vertex refuses it mid-traffic', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    vertexPipeline({ keyFile: keyFile() });
    await pipeline!.chat(claudeCodeRequest());
    await pipeline!.chat(claudeCodeRequest());
    expect(google.issued).toHaveLength(1);
    const first = google.issued[0]!;
    // 4 minutes before expiry: still valid, but inside google-auth-library's refresh window.
    vi.setSystemTime(first.expiresAt - 4 * 60_000);
    await pipeline!.chat(claudeCodeRequest());
    expect(google.issued).toHaveLength(2);
    expect(google.seen.map((s) => s.token)).toEqual([first.token, first.token, google.issued[1]!.token]);
    // The token is revoked early (rotation): that request is a key failure, the next one recovers.
    google.expireAll();
    const error = await failureOf(() => pipeline!.chat(claudeCodeRequest()));
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    await pipeline!.chat(claudeCodeRequest());
    expect(google.issued).toHaveLength(3);
    expect(google.seen.at(-1)!.token).toBe(google.issued[2]!.token);
  });

  it('counts Claude tokens on the count-tokens publisher model', async () => {
    const p = vertexPipeline({ keyFile: keyFile() });
    const provider = p.providers.get('vertex')!;
    const target = p.candidatesFor('claude')[0]!;
    const wire = await toWireRequest(provider, target, provider.buildCountTokensRequest!(claudeCodeRequest(), target));
    expect(wire.url).toBe(`${google.url}/v1/projects/fake-project/locations/europe-west1/publishers/anthropic/models/count-tokens:rawPredict`);
    const res = await p.transport.request({ ...wire, signal: new AbortController().signal });
    const text = await new Response(res.body as unknown as ReadableStream).text();
    expect(provider.parseCountTokensResponse!({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, target)).toBeGreaterThan(10);
    expect(google.seen[0]!.body).toMatchObject({ model: 'claude-sonnet-4-5@20250929' });
  });

  it.each([
    [429, { error: { code: 429, message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model', status: 'RESOURCE_EXHAUSTED' } }, 'rate-limit'],
    [529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'overloaded'],
    [403, { error: { code: 403, message: 'Permission denied on resource project fake-project.', status: 'PERMISSION_DENIED' } }, 'auth'],
  ])('%s → %s', async (status, body, kind) => {
    vertexPipeline({ keyFile: keyFile() });
    google.next({ type: 'error', status, body });
    expect(await failureOf(() => pipeline!.chat(claudeCodeRequest()))).toMatchObject({ kind, provider: 'vertex' });
  });
});

describe('Gemini on Vertex AI: the Gemini codec under the publisher model', () => {
  it('streams and answers with the Gemini codec; counts tokens with countTokens', async () => {
    const p = vertexPipeline({ keyFile: keyFile() });
    const parts = await collect(await p.stream({ model: 'gemini', messages: [{ role: 'user', content: 'hi' }] }));
    expect(parts.filter((x) => x.type === 'text-delta').map((x) => (x as { text: string }).text).join('')).toBe('Hello from Vertex.');
    expect(google.seen[0]!.path).toBe('/v1/projects/fake-project/locations/europe-west1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(google.seen[0]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const answer = await p.chat({ model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toBe('Hello from Vertex.');
    const provider = p.providers.get('vertex')!;
    const target = p.candidatesFor('gemini')[0]!;
    const built = provider.buildCountTokensRequest!({ model: 'gemini', messages: [{ role: 'user', content: 'hi' }] }, target);
    expect(built.path).toBe('/projects/fake-project/locations/europe-west1/publishers/google/models/gemini-2.5-flash:countTokens');
    expect(JSON.parse(built.body!)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  it('the global location has no regional host', () => {
    expect(vertexBaseUrl({ name: 'v', provider: 'vertex', location: 'global' })).toBe('https://aiplatform.googleapis.com/v1');
    expect(vertexBaseUrl({ name: 'v', provider: 'vertex', location: 'us-east5' })).toBe('https://us-east5-aiplatform.googleapis.com/v1');
  });
});

describe('Google credential sources', () => {
  it('Application Default Credentials from GOOGLE_APPLICATION_CREDENTIALS', async () => {
    process.env.GOOGLE_APPLICATION_CREDENTIALS = keyFile();
    vertexPipeline();
    await pipeline!.chat({ model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    expect(google.issued.map((t) => t.via)).toEqual(['jwt']);
    expect(describeGoogleCredentialSource({ name: 'v', provider: 'vertex' })).toMatch(/^service-account key file /);
  });

  it('the metadata server (GCE_METADATA_HOST) when there is no credentials file', async () => {
    process.env.GCE_METADATA_HOST = google.url.replace('http://', '');
    // Ask the metadata server (not the machine's BIOS files) whether this is Google Cloud.
    process.env.METADATA_SERVER_DETECTION = 'ping-only';
    vertexPipeline();
    await pipeline!.chat({ model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    expect(google.issued.map((t) => t.via)).toEqual(['metadata']);
    expect(google.metadataPaths).toContain('/computeMetadata/v1/instance/service-accounts/default/token');
    expect(describeGoogleCredentialSource({ name: 'v', provider: 'vertex' })).toBe(`metadata server at ${process.env.GCE_METADATA_HOST}`);
  });

  it('workload identity federation: an external_account file exchanges its subject token at the STS', async () => {
    const subject = path.join(dir, 'subject-token');
    writeFileSync(subject, google.stsSubjectToken);
    const file = path.join(dir, 'wif.json');
    writeFileSync(file, JSON.stringify({ type: 'external_account', audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/k8s', subject_token_type: 'urn:ietf:params:oauth:token-type:jwt', token_url: `${google.url}/v1/sts/token`, credential_source: { file: subject } }));
    vertexPipeline({ keyFile: file });
    await pipeline!.chat({ model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    expect(google.issued.map((t) => t.via)).toEqual(['sts']);
    expect(describeGoogleCredentialSource({ name: 'v', provider: 'vertex', options: { keyFile: file } })).toBe(`workload identity federation (external_account) ${file}`);
  });
});
