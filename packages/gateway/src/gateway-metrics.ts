/**
 * The gateway's own Prometheus basics on prom-client (HTTP requests by route and status, load
 * shedding, reloads, requests in flight), served on /metrics together with the registry of
 * @switchyard/plugin-metrics when the pipeline has it. Labels never carry keys or request ids.
 */
import { getService, SERVICE, type MetricsService, type Pipeline } from '@switchyard/core';
import { Counter, Gauge, Registry } from 'prom-client';

/** Routes outside this set are counted as `other`: the label set stays bounded whatever clients send. */
const KNOWN_ROUTES = new Set(['/v1/chat/completions', '/v1/embeddings', '/v1/models', '/metrics', '/status', '/status.html', 'auth']);

export class GatewayMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<'route' | 'status'>;
  private readonly shed: Counter;
  private readonly reloads: Counter<'result'>;

  constructor(inFlight: () => number, registry: Registry = new Registry()) {
    this.registry = registry;
    this.requests = new Counter({ name: 'switchyard_gateway_requests_total', help: 'HTTP requests answered, by route and status (499: the client went away first).', labelNames: ['route', 'status'], registers: [registry] });
    this.shed = new Counter({ name: 'switchyard_gateway_shed_total', help: 'Requests refused because maxInFlight was reached.', registers: [registry] });
    this.reloads = new Counter({ name: 'switchyard_gateway_reloads_total', help: 'Pipeline reloads, by result.', labelNames: ['result'], registers: [registry] });
    new Gauge({
      name: 'switchyard_gateway_in_flight',
      help: 'HTTP requests being served now.',
      registers: [registry],
      collect() {
        this.set(inFlight());
      },
    });
  }

  request(route: string, status: number): void {
    this.requests.inc({ route: KNOWN_ROUTES.has(route) || route.startsWith('/v1/models/') ? (route.startsWith('/v1/models/') ? '/v1/models/:id' : route) : 'other', status: String(status) });
  }

  shedOne(): void {
    this.shed.inc();
  }

  reloaded(result: 'ok' | 'failed'): void {
    this.reloads.inc({ result });
  }

  /** The exposition /metrics answers with: these basics, then the pipeline's metrics plugin (if any). */
  async render(pipeline: Pipeline | undefined): Promise<{ contentType: string; body: string }> {
    let body = await this.registry.metrics();
    const plugin = pipeline ? getService<MetricsService>(pipeline, SERVICE.metrics) : undefined;
    if (plugin && plugin.registry !== this.registry) body += (body.endsWith('\n') || body === '' ? '' : '\n') + (await plugin.exposition());
    return { contentType: this.registry.contentType, body };
  }
}
