/**
 * An answer stored because `store` was left to its default is written after it went out, a few
 * milliseconds later (write-behind.ts): a graceful stop right after it must still write it down.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.js';
import { capture, closeVendors, configFile, removeTempDirs, vendorSaying } from './support.js';

afterEach(async () => {
  await closeVendors();
  await removeTempDirs();
});

describe('a graceful stop and the answers stored after they went out', () => {
  it('writes an answer stored a moment before the stop to the journal before it closes', async () => {
    const vendor = await vendorSaying('hello');
    const file = await configFile(`
endpoints: [{ name: up, provider: openai-compatible, baseUrl: "${vendor.url}", apiKey: vendor-key }]
models: { chat: [{ endpoint: up, model: m }] }
`);
    const server = await startServer({ file, io: capture({}).io, watch: false, overrides: { port: 0 }, signals: { on: () => process, off: () => process } });
    const res = await fetch(`${server.address.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'chat', input: 'hi' }) });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await server.stop();
    const journal = await readFile(path.join(path.dirname(file), 'switchyard-records.journal'), 'utf8');
    expect(journal).toContain(`"switchyard:responses:${id}"`);
  });
});
