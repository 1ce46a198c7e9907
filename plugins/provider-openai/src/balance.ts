/**
 * Account balance routes of the OpenAI-compatible vendors that have one, as BalanceQuery
 * builders (`ProviderV1.balance`): the request and how to read its answer.
 *
 * - DeepSeek: `GET /user/balance` at the API's root (the `/v1` of the base URL is optional
 *   there) → `{ is_available, balance_infos: [{ currency, total_balance, granted_balance,
 *   topped_up_balance }] }`, amounts as decimal strings.
 * - Moonshot (Kimi): `GET /v1/users/me/balance` → `{ code: 0, data: { available_balance,
 *   voucher_balance, cash_balance }, status: true }`, in CNY on api.moonshot.cn and USD on
 *   api.moonshot.ai (the answer names no currency); calls are refused at 0 or less.
 *
 * The other presets (DashScope, Zhipu, Qianfan) and OpenAI itself have no balance route an API
 * key can read.
 */
import { SwitchyardError, type AccountBalance, type BalanceQuery, type Candidate, type ProviderHttpResponse } from '@switchyard/core';

export type BalanceRoute = (target: Candidate, baseUrl: string, headers: Record<string, string>) => BalanceQuery;

function answerError(provider: string, response: ProviderHttpResponse, what: string): SwitchyardError {
  return new SwitchyardError('server', `${provider} balance answer ${what}`, { status: response.status, provider });
}

const amount = (value: unknown): number => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN);

export const deepseekBalance: BalanceRoute = (_target, baseUrl, headers) => ({
  url: `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/user/balance`,
  method: 'GET',
  headers,
  parse(response) {
    const body = response.json as { is_available?: unknown; balance_infos?: unknown } | undefined;
    if (!body || !Array.isArray(body.balance_infos)) throw answerError('deepseek', response, 'has no balance_infos');
    return body.balance_infos.map((info: Record<string, unknown>): AccountBalance => {
      const available = amount(info.total_balance);
      if (!Number.isFinite(available) || typeof info.currency !== 'string') throw answerError('deepseek', response, 'has a balance without a currency or total_balance');
      return { currency: info.currency, available, usable: body.is_available !== false && available > 0, parts: { granted: amount(info.granted_balance), toppedUp: amount(info.topped_up_balance) } };
    });
  },
});

export const moonshotBalance: BalanceRoute = (_target, baseUrl, headers) => ({
  url: `${baseUrl.replace(/\/+$/, '')}/users/me/balance`,
  method: 'GET',
  headers,
  parse(response) {
    const data = (response.json as { data?: Record<string, unknown> } | undefined)?.data;
    const available = amount(data?.available_balance);
    if (!data || !Number.isFinite(available)) throw answerError('moonshot', response, 'has no data.available_balance');
    const currency = /\.moonshot\.ai(?::\d+)?(\/|$)/.test(baseUrl) ? 'USD' : 'CNY';
    return [{ currency, available, usable: available > 0, parts: { voucher: amount(data.voucher_balance), cash: amount(data.cash_balance) } }];
  },
});
