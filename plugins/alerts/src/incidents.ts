/**
 * One notification per incident. An incident's record lives in the StateStore under its
 * dedup key, so a reload keeps it and several gateways on one Redis announce it once: the
 * instance whose compare-and-set opens (or reminds, or resolves) the record sends the notice.
 */
import type { Clock, StateStore } from '@switchyard/core';
import type { Notice, Severity } from './notice.js';

interface IncidentRecord {
  firing: boolean;
  since: number;
  lastSentAt: number;
  /** The severity the incident fired with: its resolve goes where its trigger went. */
  severity?: Severity;
}

/** Records outlive their incident this long, so a flapping alert is still one incident a day. */
const RECORD_TTL_MS = 7 * 24 * 3_600_000;
const MAX_ROUNDS = 8;

export type Announce = (notice: Notice) => void;

export class IncidentBook {
  /** Incidents this instance saw fire: the reminder timer re-announces them. */
  private readonly firing = new Map<string, Notice>();
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly prefix: string,
    private readonly repeatMs: number,
    private readonly announce: Announce,
  ) {}

  /** The condition holds: announce it unless the incident is already open (a reminder once repeatMs passed). */
  fire(notice: Notice, options: { oneShot?: boolean } = {}): Promise<void> {
    if (!options.oneShot) this.firing.set(notice.dedupKey, notice);
    const now = this.clock.now();
    const ttl = options.oneShot ? this.repeatMs : RECORD_TTL_MS;
    return this.serial(notice.dedupKey, async () => {
      let reminder = false;
      const wrote = await this.update(notice.dedupKey, ttl, (record) => {
        if (!record?.firing) return { firing: true, since: now, lastSentAt: now, severity: notice.severity };
        if (options.oneShot || now - record.lastSentAt < this.repeatMs) return undefined;
        reminder = true;
        return { ...record, lastSentAt: now };
      });
      if (wrote) this.announce({ ...notice, reminder });
    });
  }

  /** The condition cleared: announce the resolution once, if an incident was open. */
  resolve(notice: Notice): Promise<void> {
    this.firing.delete(notice.dedupKey);
    const now = this.clock.now();
    return this.serial(notice.dedupKey, async () => {
      let since = now;
      let severity = notice.incidentSeverity;
      const wrote = await this.update(notice.dedupKey, RECORD_TTL_MS, (record) => {
        if (!record?.firing) return undefined;
        since = record.since;
        severity = record.severity ?? severity;
        return { ...record, firing: false, lastSentAt: now };
      });
      if (wrote) this.announce({ ...notice, incidentSeverity: severity, details: { ...notice.details, firingForMs: now - since } });
    });
  }

  /** Resolves once every fire / resolve started so far has finished. */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()].map((p) => p.catch(() => undefined)));
  }

  isFiring(dedupKey: string): boolean {
    return this.firing.has(dedupKey);
  }

  /** Re-fires every incident still open here; the store decides whether a reminder is due. */
  async remind(): Promise<void> {
    await Promise.all([...this.firing.values()].map((n) => this.fire({ ...n, at: new Date(this.clock.now()).toISOString() })));
  }

  /** Read-modify-write of one record; `change` returns undefined to leave it alone. True when this caller wrote. */
  private async update(dedupKey: string, ttlMs: number, change: (record: IncidentRecord | undefined) => IncidentRecord | undefined): Promise<boolean> {
    const key = `${this.prefix}:incident:${dedupKey}`;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await this.store.get<IncidentRecord>(key);
      const next = change(current);
      if (!next) return false;
      if (!this.store.compareAndSet) {
        await this.store.set(key, next, ttlMs);
        return true;
      }
      if (await this.store.compareAndSet(key, current, next, ttlMs)) return true;
    }
    return false;
  }

  /** One update per dedup key at a time inside this process (stores without compare-and-set). */
  private serial(key: string, work: () => Promise<void>): Promise<void> {
    const run = (this.chains.get(key) ?? Promise.resolve()).then(work, work);
    this.chains.set(key, run);
    void run.finally(() => {
      if (this.chains.get(key) === run) this.chains.delete(key);
    });
    return run;
  }
}
