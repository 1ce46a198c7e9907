/**
 * Chinese vendors as presets of the OpenAI-compatible family: each has its default base URL,
 * Bearer auth and an error table for the codes its documentation lists, applied before the
 * family's generic classification (an endpoint's own `errors:` rules run before both).
 *
 * - DashScope / Bailian (Alibaba, Tongyi Qwen, compatible mode): `Arrearage` (overdue account)
 *   and `InvalidApiKey` are key failures, `Throttling.*` rate limits, `DataInspectionFailed`
 *   (compatible mode: `data_inspection_failed`) a content filter.
 * - Zhipu GLM (BigModel v4): business codes in the body: 1000–1004, 1110–1112 key failures,
 *   1113 balance exhausted (payment, sent with HTTP 429), 1301 content filter, 1302 / 1303 /
 *   1305 rate limits.
 * - Moonshot Kimi: `exceeded_current_quota_error` payment, `rate_limit_reached_error` rate
 *   limit, `content_filter`, `invalid_authentication_error`, `engine_overloaded_error`.
 * - Baidu Qianfan (OpenAI-compatible v2 API): IAM/API key failures, RPM/TPM limits (336501 /
 *   336502 and their v2 names), QPS and daily limits (18 / 17), arrears.
 * - DeepSeek: 402 insufficient balance (payment), 503 server busy (overloaded).
 */
import type { Capability } from '@switchyard/core';
import { type ErrorRule } from '@switchyard/core/internal';
import { deepseekBalance, moonshotBalance, type BalanceRoute } from './balance.js';
import { bearerAuth, defineOpenAIFamilyProvider } from './provider.js';

interface Preset {
  id: string;
  defaultBaseUrl: string;
  defaultCapabilities: readonly Capability[];
  errorRules: readonly ErrorRule[];
  balance?: BalanceRoute;
}

const rule = (kind: ErrorRule['kind'], fields: Omit<ErrorRule, 'kind'>): ErrorRule => ({ ...fields, kind });
const codes = (kind: ErrorRule['kind'], ...list: string[]): ErrorRule[] => list.map((code) => rule(kind, { code }));

export const VENDOR_PRESETS: readonly Preset[] = [
  {
    id: 'dashscope',
    defaultBaseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    defaultCapabilities: ['tools', 'json', 'vision', 'stream'],
    errorRules: [
      ...codes('payment', 'Arrearage'),
      ...codes('auth', 'InvalidApiKey', 'invalid_api_key', 'AccessDenied'),
      ...codes('rate-limit', 'Throttling*', 'limit_requests', 'limit_burst_rate'),
      ...codes('content-filter', 'DataInspectionFailed', 'data_inspection_failed'),
    ],
  },
  {
    id: 'zhipu',
    defaultBaseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    defaultCapabilities: ['tools', 'json', 'vision', 'stream'],
    errorRules: [
      ...codes('auth', '1000', '1001', '1002', '1003', '1004', '1110', '1111', '1112'),
      ...codes('payment', '1113'),
      ...codes('content-filter', '1301'),
      ...codes('rate-limit', '1302', '1303', '1305'),
    ],
  },
  {
    id: 'moonshot',
    defaultBaseUrl: 'https://api.moonshot.cn/v1',
    defaultCapabilities: ['tools', 'json', 'stream', 'prefill'],
    errorRules: [
      ...codes('payment', 'exceeded_current_quota_error'),
      ...codes('rate-limit', 'rate_limit_reached_error'),
      ...codes('content-filter', 'content_filter'),
      ...codes('auth', 'invalid_authentication_error', 'permission_denied_error'),
      ...codes('overloaded', 'engine_overloaded_error'),
    ],
    balance: moonshotBalance,
  },
  {
    id: 'qianfan',
    defaultBaseUrl: 'https://qianfan.baidubce.com/v2',
    defaultCapabilities: ['tools', 'json', 'stream'],
    errorRules: [
      ...codes('auth', 'invalid_iam_token', 'IAMCertificationFailed', 'invalid_api_key', '110', '111'),
      ...codes('rate-limit', 'rpm_rate_limit_exceeded', 'tpm_rate_limit_exceeded', 'qps_rate_limit_exceeded', '336501', '336502', '18', '4'),
      ...codes('payment', '17', '19'),
      rule('payment', { match: '/欠费|arrear|余额不足|insufficient balance/' }),
    ],
  },
  {
    id: 'deepseek',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    defaultCapabilities: ['tools', 'json', 'stream', 'prefill'],
    errorRules: [rule('payment', { status: 402 }), rule('overloaded', { status: 503 })],
    balance: deepseekBalance,
  },
];

export const vendorPresetProviders = VENDOR_PRESETS.map((preset) =>
  defineOpenAIFamilyProvider({
    id: preset.id,
    defaultBaseUrl: preset.defaultBaseUrl,
    defaultCapabilities: preset.defaultCapabilities,
    pathFor: (operation) => `/${operation}`,
    authHeaders: bearerAuth,
    keepReasoning: true,
    errorRules: preset.errorRules,
    balance: preset.balance,
  }),
);
