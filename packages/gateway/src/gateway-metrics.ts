/**
 * The gateway's own Prometheus basics on prom-client (HTTP requests by route and status, load
 * shedding, reloads, requests in flight), served on /metrics together with the registry of
 * @switchyard/plugin-metrics when the pipeline has it. Labels never carry keys or request ids.
 */
import { SERVICE, type MetricsService } from '@switchyard/contracts';
import { getService, type Pipeline } from '@switchyard/core';
import { Counter, Gauge, Registry } from 'prom-client';

/** Routes outside this set are counted as `other`: the label set stays bounded whatever clients send. */
const KNOWN_ROUTES = new Set(['/v1/chat/completions', '/v1/embeddings', '/v1/models', '/v1/messages', '/v1/messages/count_tokens', '/v1/responses', '/metrics', '/status', '/status.html', '/switchyard/usage', 'auth']);

/** The route label of a path. */
function routeLabel(route: string): string {
  if (KNOWN_ROUTES.has(route)) return route;
  if (route.startsWith('/v1/models/')) return '/v1/models/:id';
  if (route.startsWith('/v1/responses/')) return '/v1/responses/:id';
  if (route.startsWith('/switchyard/keys') || route.startsWith('/switchyard/teams')) return '/switchyard/admin';
  return 'other';
}

export class GatewayMetrics {
  readonly registry: Registry;
  /**
   * Requests answered, by route and status, added up here and handed to prom-client when
   * /metrics is scraped: per request one Map update, not prom-client's label hashing.
   */
  private readonly answered = new Map<string, { route: string; status: number; count: number }>();
  private readonly shed: Counter;
  private readonly reloads: Counter<'result'>;

  constructor(inFlight: () => number, registry: Registry = new Registry()) {
    this.registry = registry;
    const answered = this.answered;
    new Counter({
      name: 'switchyard_gateway_requests_total',
      help: 'HTTP requests answered, by route and status (499: the client went away first).',
      labelNames: ['route', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const a of answered.values()) this.inc({ route: a.route, status: String(a.status) }, a.count);
      },
    });
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

  /**
   * `pattern`: the dialect route the request matched when its path has parameters
   * (`/v1beta/models/{model}:generateContent`): the label of a path the known routes do not
   * name, so a Gemini call is counted under its route, not as `other`, and the model in its URL
   * never becomes a label value.
   */
  request(route: string, status: number, pattern?: string): void {
    // Keyed by the label, never the raw path: the map stays as bounded as the label set (a route table's patterns are).
    const known = routeLabel(route);
    const label = known === 'other' && pattern ? pattern : known;
    const key = `${label} ${status}`;
    const found = this.answered.get(key);
    if (found) found.count++;
    else this.answered.set(key, { route: label, status, count: 1 });
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
