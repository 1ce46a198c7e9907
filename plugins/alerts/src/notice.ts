/** What an alert says: the generic payload every channel formats from. */
export const ALERT_NAMES = [
  'breaker-open',
  'breaker-closed',
  'all-candidates-failed',
  'health-unhealthy',
  'health-recovered',
  'key-parked',
  'budget-threshold',
  'success-rate-below',
  'rate-limited',
  'degraded',
  'quality-degraded',
  'quality-restored',
  'error-pattern',
  'error-pattern-ended',
  'traffic-drift',
  'traffic-restored',
  'budget-forecast',
  'balance-low',
  'tenant-budget',
] as const;

export type AlertName = (typeof ALERT_NAMES)[number];

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Notice {
  alert: AlertName;
  severity: Severity;
  state: 'firing' | 'resolved';
  deployment: string | null;
  endpoint: string | null;
  model: string | null;
  message: string;
  /** ISO time on the pipeline's clock. */
  at: string;
  details: Record<string, unknown>;
  /** One incident, one key: the channels that deduplicate on their side (PagerDuty) get it too. */
  dedupKey: string;
  /** The alert that opened the incident (a `breaker-closed` notice resolves `breaker-open`). */
  incident: AlertName;
  /**
   * The severity the incident fired with. A resolved notice is `info`, but channels filter it
   * by this one, so a resolve reaches every channel that got its trigger.
   */
  incidentSeverity: Severity;
  /** True for a reminder of an incident that is still firing. */
  reminder: boolean;
}

/** The alert a resolved incident is announced as. */
export const RESOLVED_AS: Partial<Record<AlertName, AlertName>> = {
  'breaker-open': 'breaker-closed',
  'health-unhealthy': 'health-recovered',
  'quality-degraded': 'quality-restored',
  'error-pattern': 'error-pattern-ended',
  'traffic-drift': 'traffic-restored',
};

/** `endpoint/model#key` (a breaker or candidate id) split into its parts. */
export function deploymentParts(id: string | undefined): Pick<Notice, 'deployment' | 'endpoint' | 'model'> {
  if (!id) return { deployment: null, endpoint: null, model: null };
  const deployment = id.split('#', 1)[0];
  const slash = deployment.indexOf('/');
  return slash < 0 ? { deployment, endpoint: deployment, model: null } : { deployment, endpoint: deployment.slice(0, slash), model: deployment.slice(slash + 1) };
}
