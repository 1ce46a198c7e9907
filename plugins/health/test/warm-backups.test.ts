/**
 * Warm backups: when the primary's breaker opens, the backup's TLS connection is opened ahead of
 * need and the first failed-over request arrives on it. Real TLS loopback, real undici transport.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { createUndiciTransport } from '@switchyard/core/config';
import { HEALTH_HOOKS } from '@switchyard/contracts';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { completion } from '../../../packages/core/test/support/loopback.js';
import { selfSignedCert, startTlsUpstream, type TlsUpstream } from '../../../packages/core/test/support/tls-upstream.js';
import { circuitBreaker, getBreaker } from '../../circuit-breaker/src/index.js';
import { health } from '../src/index.js';

const pem = selfSignedCert();
let running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

async function setup(warm: boolean): Promise<{ pipeline: Pipeline; backup: TlsUpstream }> {
  const backup = await startTlsUpstream(pem, completion('from the backup'));
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'test', baseUrl: 'https://127.0.0.1:9/v1' },
      { name: 'backup', provider: 'test', baseUrl: backup.url },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'm' }, { endpoint: 'backup', model: 'm' }] },
    providers: [testProvider],
    plugins: [circuitBreaker(), health({ warmBackups: { enabled: warm } })],
    transport: createUndiciTransport({ ca: pem.cert }),
  });
  running.push(backup, { close: () => pipeline.close() });
  return { pipeline, backup };
}

/** Waits for the backup to have seen `n` TLS handshakes. */
const handshakes = (backup: { handshakes: number }, n: number) => expect.poll(() => backup.handshakes, { timeout: 5_000, interval: 5 }).toBe(n);

describe('warm backups', () => {
  it('a breaker opening connects to the backup ahead of need; the first failover request uses that connection', async () => {
    const { pipeline, backup } = await setup(true);
    await getBreaker(pipeline).forceOpen('primary/m');
    await handshakes(backup, 1);
    expect(backup.requests).toHaveLength(0);
    const asked = performance.now();
    const answer = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.switchyard?.endpoint).toBe('backup');
    expect(backup.handshakes).toBe(1);
    // The request came on the connection made before it was needed.
    expect(backup.requests[0].connection).toBe(1);
    expect(backup.requests[0].handshakeAt).toBeLessThan(asked);
  });

  it('without warm-up the first failover request pays the handshake', async () => {
    const { pipeline, backup } = await setup(false);
    await getBreaker(pipeline).forceOpen('primary/m');
    // An absence has no condition to wait on: the window in which a warm-up would have connected.
    await new Promise((r) => setTimeout(r, 200));
    expect(backup.handshakes).toBe(0);
    await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(backup.handshakes).toBe(1);
    expect(backup.requests[0].handshakeAt).toBeGreaterThan(backup.requests[0].arrivedAt - 100);
  });

  it('a health drop warms the next candidates too', async () => {
    const { pipeline, backup } = await setup(true);
    HEALTH_HOOKS.of(pipeline).change.call({ deployment: 'primary/m', healthy: false, score: 0 });
    await handshakes(backup, 1);
  });
});
