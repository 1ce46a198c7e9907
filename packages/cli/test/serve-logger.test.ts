import { describe, expect, it } from 'vitest';
import { createServeLogger, prettyLine, resolveLogLevel } from '../src/index.js';

function sink(isTTY = false) {
  let text = '';
  return { out: { isTTY, write: (s: string) => (text += s) }, get text() { return text; } };
}

const SECRET = 'sk-live-abcdefghijklmnop0123';

describe('serve logger', () => {
  it('writes pino JSON lines with ISO time and a level label, masking keys, their 8+ character pieces and secret paths', () => {
    const s = sink();
    const logger = createServeLogger({ out: s.out, secrets: () => [SECRET] });
    logger.warn({ event: 'attempt_failed', error: `invalid key ${SECRET}, starts ${SECRET.slice(2, 12)}`, headers: { authorization: 'Bearer x', 'x-api-key': 'plain' }, config: { endpoints: [{ apiKey: 'also-secret-value' }] } }, 'upstream attempt failed');
    const line = JSON.parse(s.text.trim());
    expect(line).toMatchObject({ level: 'warn', msg: 'upstream attempt failed', event: 'attempt_failed' });
    expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(line.headers).toEqual({ authorization: '[redacted]', 'x-api-key': '[redacted]' });
    expect(line.config.endpoints[0].apiKey).toBe('[redacted]');
    expect(s.text).not.toContain(SECRET);
    expect(s.text).not.toContain(SECRET.slice(2, 12));
    expect(s.text).not.toContain('also-secret-value');
  });

  it('masks errors, format arguments and child bindings too', () => {
    const s = sink();
    const logger = createServeLogger({ out: s.out, secrets: () => [SECRET] });
    // A piece of the key's random part (what follows `sk-live-`).
    logger.error(new Error(`vendor said ${SECRET}`), 'failed: %s', `echo ${SECRET.slice(8, 20)}`);
    logger.child({ component: `tenant ${SECRET}`, headers: { 'x-api-key': 'k' } }).info({ ok: true }, 'child line');
    const [first, second] = s.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(first).toMatchObject({ level: 'error', msg: 'failed: echo [redacted]', type: 'Error', message: 'vendor said [redacted]' });
    expect(first.stack).toContain('Error: vendor said [redacted]');
    expect(second).toMatchObject({ msg: 'child line', component: 'tenant [redacted]', headers: { 'x-api-key': '[redacted]' }, ok: true });
    expect(s.text).not.toContain(SECRET.slice(8, 16));
  });

  it('honours the level and is human-readable on a terminal', () => {
    const s = sink(true);
    const logger = createServeLogger({ out: s.out, secrets: () => [], level: 'warn' });
    logger.info({ event: 'access' }, 'request');
    logger.warn({ event: 'breaker_open', deployment: 'a/m', reason: 'consecutive failures' }, 'circuit breaker opened');
    expect(s.text).not.toContain('request');
    expect(s.text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}circuit breaker opened event=breaker_open deployment=a\/m reason="consecutive failures"\n$/);
  });

  it('takes LOG_LEVEL over the config and ignores unknown levels', () => {
    expect(resolveLogLevel({ LOG_LEVEL: 'DEBUG' }, 'warn')).toBe('debug');
    expect(resolveLogLevel({}, 'error')).toBe('error');
    expect(resolveLogLevel({ LOG_LEVEL: 'loud' }, undefined)).toBe('info');
    expect(prettyLine('not json')).toBe('not json');
  });
});

describe('serve logger on stdout (a descriptor): batched lines and the flat access line', () => {
  function stdoutSink() {
    let text = '';
    return { out: { fd: 1, write: (s: string) => (text += s) }, get text() { return text; } };
  }

  it('writes a flat line exactly as pino writes the same call, masked and censored the same way', async () => {
    const { LOGGER_FLAT_LINE } = await import('@switchyard/gateway');
    const viaPino = stdoutSink();
    const viaFlat = stdoutSink();
    const pinoLogger = createServeLogger({ out: viaPino.out, secrets: () => [SECRET] });
    const flatLogger = createServeLogger({ out: viaFlat.out, secrets: () => [SECRET] });
    const fields = { event: 'access', requestId: `id-${SECRET}`, route: '/v1/chat/completions', status: 200, latencyMs: 3, cost: Number.NaN, stream: false, skipped: undefined, error: `vendor said ${SECRET.slice(1, 12)}`, apiKey: 'plain-key-value' };
    pinoLogger.info(fields, 'request');
    const flat = (flatLogger as unknown as Record<symbol, (level: string, f: object, m: string) => void>)[LOGGER_FLAT_LINE];
    expect(typeof flat).toBe('function');
    flat('info', fields, 'request');
    pinoLogger.flushLines();
    flatLogger.flushLines();
    const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"').replace(/"pid":\d+/, '"pid":0');
    expect(withoutTime(viaFlat.text)).toBe(withoutTime(viaPino.text));
    expect(viaFlat.text).not.toContain(SECRET.slice(1, 12));
    expect(JSON.parse(viaFlat.text)).toMatchObject({ level: 'info', msg: 'request', requestId: 'id-[redacted]', apiKey: '[redacted]', cost: null, stream: false });
  });

  it('writes a field the gateway made (its own request id) as it is, and masks the same field from a client', async () => {
    const { LOGGER_FLAT_LINE } = await import('@switchyard/gateway');
    const s = stdoutSink();
    const logger = createServeLogger({ out: s.out, secrets: () => [SECRET] });
    const flat = (logger as unknown as Record<symbol, (level: string, f: object, m: string, made?: readonly string[]) => void>)[LOGGER_FLAT_LINE];
    // Eight characters of the key's random part, by chance, in an id the gateway made from random bytes: not the key's.
    const chance = `req_0${SECRET.slice(8, 16)}9`;
    flat('info', { event: 'access', requestId: chance, error: `vendor said ${SECRET}` }, 'request', ['requestId']);
    flat('info', { event: 'access', requestId: chance }, 'request');
    logger.flushLines();
    const [made, client] = s.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(made).toMatchObject({ requestId: chance, error: 'vendor said [redacted]' });
    expect(client.requestId).toBe('req_0[redacted]9');
  });

  it('keeps lines until the batch is written, in order, and drops what the level filters', async () => {
    const { LOGGER_FLAT_LINE } = await import('@switchyard/gateway');
    const s = stdoutSink();
    const logger = createServeLogger({ out: s.out, secrets: () => [], level: 'warn' });
    const flat = (logger as unknown as Record<symbol, (level: string, f: object, m: string) => void>)[LOGGER_FLAT_LINE];
    flat('info', { event: 'access', n: 1 }, 'request');
    logger.warn({ event: 'one' }, 'first');
    flat('warn', { event: 'access', n: 2 }, 'request');
    expect(s.text).toBe('');
    // The batch goes out LINE_BATCH_DELAY_MS later, in one write.
    await expect.poll(() => s.text, { timeout: 5_000, interval: 5 }).not.toBe('');
    expect(s.text.trim().split('\n').map((l) => JSON.parse(l).event)).toEqual(['one', 'access']);
  });
});
