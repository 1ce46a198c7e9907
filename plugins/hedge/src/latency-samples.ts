/** Recent latencies per deployment, for p95-based hedge delays. */
export class LatencySamples {
  private readonly samples = new Map<string, number[]>();

  constructor(private readonly capacity = 200) {}

  add(deploymentId: string, ms: number): void {
    let ring = this.samples.get(deploymentId);
    if (!ring) this.samples.set(deploymentId, (ring = []));
    ring.push(ms);
    if (ring.length > this.capacity) ring.shift();
  }

  count(deploymentId: string): number {
    return this.samples.get(deploymentId)?.length ?? 0;
  }

  /** The q-quantile (0..1) of the recent samples, or undefined without any. */
  quantile(deploymentId: string, q: number): number | undefined {
    const ring = this.samples.get(deploymentId);
    if (!ring || ring.length === 0) return undefined;
    const sorted = [...ring].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  }
}
