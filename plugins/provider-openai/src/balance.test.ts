/** The balance routes the presets build: where they go, and how their answers read. */
import { describe, expect, it } from 'vitest';
import { vendorPresetProviders } from './vendor-presets.js';
import { openaiProvider } from './openai.js';

const preset = (id: string) => vendorPresetProviders.find((p) => p.id === id)!;
const target = (provider: string, baseUrl?: string) => ({ endpoint: { name: provider, provider, ...(baseUrl ? { baseUrl } : {}) }, apiKey: 'sk-test-0001', provider }) as never;
const answer = (json: unknown) => ({ status: 200, headers: {}, json, text: JSON.stringify(json) });

describe('balance routes', () => {
  it('DeepSeek: /user/balance at the root of its default or configured base URL, with the key', () => {
    const query = preset('deepseek').balance!(target('deepseek'))!;
    expect(query).toMatchObject({ url: 'https://api.deepseek.com/user/balance', method: 'GET', headers: { authorization: 'Bearer sk-test-0001' } });
    expect(preset('deepseek').balance!(target('deepseek', 'https://proxy.example/deepseek/v1/'))!.url).toBe('https://proxy.example/deepseek/user/balance');
    expect(query.parse(answer({ is_available: false, balance_infos: [{ currency: 'USD', total_balance: '0.00', granted_balance: '0.00', topped_up_balance: '0.00' }] }))).toEqual([{ currency: 'USD', available: 0, usable: false, parts: { granted: 0, toppedUp: 0 } }]);
    expect(() => query.parse(answer({ error: 'nope' }))).toThrow(/deepseek balance answer has no balance_infos/);
  });

  it('Moonshot: /v1/users/me/balance, CNY on api.moonshot.cn and USD on api.moonshot.ai', () => {
    const cn = preset('moonshot').balance!(target('moonshot'))!;
    expect(cn.url).toBe('https://api.moonshot.cn/v1/users/me/balance');
    const body = { code: 0, data: { available_balance: 49.58894, voucher_balance: 46.58893, cash_balance: 3.00001 }, scode: '0x0', status: true };
    expect(cn.parse(answer(body))).toEqual([{ currency: 'CNY', available: 49.58894, usable: true, parts: { voucher: 46.58893, cash: 3.00001 } }]);
    const ai = preset('moonshot').balance!(target('moonshot', 'https://api.moonshot.ai/v1'))!;
    expect(ai.parse(answer({ ...body, data: { ...body.data, available_balance: -1 } }))[0]).toMatchObject({ currency: 'USD', usable: false });
  });

  it('vendors without a balance route have none', () => {
    expect(openaiProvider.balance).toBeUndefined();
    expect(preset('zhipu').balance).toBeUndefined();
  });
});
