/**
 * Polls the balance route of every key whose provider has one (`ProviderV1.balance`), one key
 * after the other, on an unref'd timer on the pipeline's clock: an idle gateway is never kept
 * alive by it, and no request waits for it. Each answer (or failure) is a `balance:update`.
 */
import { SwitchyardError, toSwitchyardError, type AccountBalance, type Candidate, type Pipeline, type ProviderHttpResponse, type SwitchyardEvents } from '@switchyard/core';
import { applyErrorRules } from '@switchyard/core/internal';
import { readBodyText } from '@switchyard/core/wire';
import type { BalanceOptions } from './options.js';

export type BalanceReading = SwitchyardEvents['balance:update'][0];

/** One candidate per endpoint key: a balance belongs to an account, not to a model. */
export function balanceTargets(pipeline: Pipeline, options: BalanceOptions): Candidate[] {
  const seen = new Map<string, Candidate>();
  for (const model of pipeline.modelNames()) {
    for (const c of pipeline.candidatesFor(model)) {
      const key = `${c.endpoint.name}#${c.keyIndex}`;
      if (seen.has(key) || c.endpoint.enabled === false || options.endpoints[c.endpoint.name]?.poll === false) continue;
      if (pipeline.providers.get(c.provider)?.balance?.(c)) seen.set(key, c);
    }
  }
  return [...seen.values()];
}

export class BalancePoller {
  private readonly latest = new Map<string, BalanceReading>();
  private stopped = false;
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly options: BalanceOptions,
    private readonly targets: readonly Candidate[],
  ) {}

  readings(): BalanceReading[] {
    return [...this.latest.values()];
  }

  /** Asks every key once, one after the other. */
  async pollAll(): Promise<void> {
    for (const target of this.targets) {
      if (this.stopped) return;
      const reading = await this.poll(target);
      if (this.stopped) return;
      this.latest.set(`${reading.endpoint}|${reading.keyId}`, reading);
      this.pipeline.events.emit('balance:update', reading);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const c of this.inFlight) c.abort();
  }

  private async poll(target: Candidate): Promise<BalanceReading> {
    const { clock } = this.pipeline;
    const provider = this.pipeline.providers.get(target.provider)!;
    const minBalance = this.options.endpoints[target.endpoint.name]?.minBalance;
    const base = { endpoint: target.endpoint.name, keyId: target.keyId, provider: target.provider, minBalance, checkedAt: clock.now() };
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = clock.setTimeout(() => controller.abort(), this.options.timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    try {
      const query = provider.balance!(target)!;
      const res = await this.pipeline.transport.request({ url: query.url, method: query.method, headers: { ...target.endpoint.headers, ...query.headers }, signal: controller.signal });
      const text = await readBodyText(res.body);
      const http: ProviderHttpResponse = { status: res.status, headers: res.headers, text, json: parseJson(text) };
      if (http.status >= 300) throw applyErrorRules(target.endpoint.errors, http, provider.classifyError(http, target));
      const balances = query.parse(http);
      return { ...base, balances, ...judge(balances, minBalance) };
    } catch (caught) {
      const error = controller.signal.aborted ? new SwitchyardError('timeout', `no balance answer within ${this.options.timeoutMs} ms`) : toSwitchyardError(caught);
      // The vendor's words, never the key (toSwitchyardError and the providers mask it).
      return { ...base, balances: [], low: false, dry: false, error: `${error.kind}${error.status ? ` ${error.status}` : ''}: ${error.message}` };
    } finally {
      clock.clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }
}

/** Low: every currency's funds are under the threshold (or refused); dry: the vendor refuses calls. */
function judge(balances: readonly AccountBalance[], minBalance: number | undefined): { low: boolean; dry: boolean } {
  const dry = balances.length > 0 && balances.every((b) => !b.usable);
  const low = dry || (minBalance !== undefined && balances.length > 0 && balances.every((b) => b.available < minBalance));
  return { low, dry };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
