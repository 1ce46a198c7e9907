/**
 * The status page in a real headless Chromium (Debian's chromium, driven by puppeteer-core):
 * the page loads with everything closed, the primary goes down, and the page (refreshing on
 * its own) shows the primary's breaker open. Assertions are on the DOM; a screenshot is saved.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import OpenAI from 'openai';
import { createPipeline } from '@switchyard/core';
import { quota } from '@switchyard/plugin-quota';
import { tenants } from '@switchyard/plugin-tenants';
import { openaiProvider } from '@switchyard/provider-openai';
import { answers, GATEWAY_KEY, startGateway, stopAll, vendor, VENDOR_KEY } from './support/harness.js';
import { keyFragments, outageGateway } from './support/outage.js';
import { findTool } from './support/system-tool.js';

const chromium = findTool('chromium', ['/usr/bin/chromium', '/usr/bin/chromium-browser']);
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await stopAll();
});

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const breakerOf = (deployment: string) => `[data-deployment="${deployment}"] .badge.breaker`;

describe.skipIf(!chromium)('status page in headless Chromium', () => {
  it('shows the primary breaker open once the primary is down, refreshing by itself', async () => {
    const { client, origin, setPrimaryDown } = await outageGateway({ primaryUp: true });
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('hello from primary');

    browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    // The browser answers the Basic challenge with a gateway key, as an operator would.
    await page.authenticate({ username: 'ops', password: GATEWAY_KEY });
    const response = await page.goto(`${origin}/status.html?refresh=500`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector(breakerOf('primary/primary-model'));
    expect(await page.$eval(breakerOf('primary/primary-model'), (e) => e.textContent)).toBe('breaker closed');

    setPrimaryDown(true);
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('hello from secondary');
    // The breaker opens during the second request's attempt; that request is counted when it ends:
    // a refresh between the two shows the breaker open and one request. Wait for both.
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.classList.contains('breaker-open') && (document.querySelector('[data-model="chat"] .verdict')?.textContent ?? '').includes('2 of 2'),
      { timeout: 10_000 },
      breakerOf('primary/primary-model'),
    );

    const view = await page.evaluate(() => {
      const card = (id: string) => document.querySelector(`[data-deployment="${id}"]`)!;
      const primary = card('primary/primary-model');
      const secondary = card('secondary/secondary-model');
      return {
        rendered: Number(document.body.dataset.rendered),
        primaryBreaker: primary.querySelector('.badge.breaker')!.textContent,
        primaryHealth: primary.querySelector('.badge.health')!.className,
        primaryState: primary.querySelector('.badge.state')!.textContent,
        modelState: document.querySelector('[data-model="chat"] .model-state')!.textContent,
        verdict: document.querySelector('[data-model="chat"] .verdict')!.textContent,
        primaryKeys: Array.from(primary.querySelectorAll('.badge.key')).map((k) => `${k.getAttribute('data-key')} ${k.className}`),
        primaryError: primary.querySelector('.error')?.textContent ?? '',
        secondaryBreaker: secondary.querySelector('.badge.breaker')!.className,
        sparklines: primary.querySelectorAll('svg.spark polyline').length,
        spend: document.getElementById('spend')!.textContent,
        stale: document.getElementById('stale')!.textContent,
        html: document.documentElement.outerHTML,
      };
    });
    expect(view.rendered).toBeGreaterThan(1);
    expect(view.primaryBreaker).toBe('breaker open');
    expect(view.primaryHealth).toContain('health-unhealthy');
    expect(view.primaryKeys).toEqual(['primary#0 badge key key-parked', 'primary#1 badge key key-active']);
    expect(view.primaryState).toBe('down');
    expect(view.modelState).toBe('degraded');
    expect(view.verdict).toBe('degraded: 2 of 2 requests answered in the last 5 min (primary/primary-model down) · success 100.0 %');
    // Times as an operator reads them.
    expect(view.primaryError).toMatch(/^last error (just now|\d+ s ago): overloaded 503/);
    expect(view.secondaryBreaker).toContain('breaker-closed');
    expect(view.sparklines).toBe(2);
    expect(view.spend).toMatch(/^\$\d+\.\d{4}$/);
    expect(view.stale).toBe('');
    for (const piece of keyFragments()) expect(view.html).not.toContain(piece);

    // Kept for a person to look at, in the repository's ignored tmp/ (one file, replaced each run).
    const dir = fileURLToPath(new URL('../../../tmp/', import.meta.url));
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'status-primary-down.png');
    await page.screenshot({ path: file, fullPage: true });
    expect((await stat(file)).size).toBeGreaterThan(1000);
    console.info(`status page screenshot: ${file}`);
    expect(problems).toEqual([]);
  }, 60_000);

  it('lists each gateway key with its requests and spend today', async () => {
    const upstream = await vendor(answers(['hello']));
    const pipeline = createPipeline({
      endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url, apiKey: VENDOR_KEY }],
      models: { chat: [{ endpoint: 'primary', model: 'primary-model', price: { input: 1000, output: 1000 } }] },
      providers: [openaiProvider],
      plugins: [quota(), tenants()],
    });
    const admin = 'admin-key-for-the-status-page-0123';
    const h = await startGateway(pipeline, { server: { adminKeys: [admin] } });
    const created = await (await fetch(`${h.origin}/switchyard/keys`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: JSON.stringify({ name: 'team-a-app', team: 'a' }) })).json();
    const client = new OpenAI({ baseURL: h.baseURL, apiKey: created.secret, maxRetries: 0 });
    await client.chat.completions.create(ask);
    await client.chat.completions.create(ask);

    browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    await page.authenticate({ username: 'ops', password: admin });
    expect((await page.goto(`${h.origin}/status.html`, { waitUntil: 'load' }))?.status()).toBe(200);
    const row = `[data-caller="${created.key.id}"] td`;
    await page.waitForSelector(row);
    expect(await page.$$eval(row, (cells) => cells.map((c) => c.textContent))).toEqual([created.key.id, 'team-a-app', 'a', '2', '0', '$0.0100']);
    expect(await page.content()).not.toContain(created.secret.split('.')[1]);
  }, 60_000);
});
