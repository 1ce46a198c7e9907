/**
 * Which probes run on which deployment, with what settings: the plugin's `probes`, then the
 * deployment's endpoint entry in `endpoints`, then its own entry in `deployments`, merged field
 * by field (`false` turns a depth off there; an entry turns a depth on for that target alone).
 * Names that match no endpoint or deployment are an options error, not a silent no-op.
 */
import { SwitchyardError, type Candidate, type Pipeline } from '@switchyard/core';
import { probeSchemas, PROBE_DEPTHS, type DepthSettings, type HealthOptions, type ProbeDepth, type TargetOverride } from './options.js';

export interface ProbePlan {
  /** The settings of `depth` for this deployment, or undefined when that depth does not run there. */
  settings<D extends ProbeDepth>(target: Pick<Candidate, 'deploymentId'>, depth: D): DepthSettings[D] | undefined;
  /** The latency with full marks for this deployment. */
  latencyTargetMs(deploymentId: string): number;
}

/** The same settings for every target (the CLI's one-off probes). */
export function uniformPlan(probes: Partial<DepthSettings>, latencyTargetMs = 10_000): ProbePlan {
  return { settings: (_target, depth) => probes[depth], latencyTargetMs: () => latencyTargetMs };
}

const optionsError = (path: string, message: string) => new SwitchyardError('plugin', `${path}: ${message} (@switchyard/plugin-health)`, { code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path });

/** Resolves and validates every target's settings now, so a bad override fails when the plugin is applied. */
export function probePlan(pipeline: Pipeline, options: Pick<HealthOptions, 'probes' | 'endpoints' | 'deployments' | 'latencyTargetMs'>): ProbePlan {
  const targets = new Map<string, Candidate>();
  for (const model of pipeline.modelNames()) for (const c of pipeline.candidatesFor(model)) if (!targets.has(c.deploymentId)) targets.set(c.deploymentId, c);
  const endpointNames = new Set(pipeline.endpoints.map((e) => e.name));
  const deploymentIds = new Set(Object.entries(pipeline.models).flatMap(([, list]) => list.map((d) => `${d.endpoint}/${d.model}`)));
  for (const name of Object.keys(options.endpoints)) if (!endpointNames.has(name)) throw optionsError(`endpoints.${name}`, `unknown endpoint "${name}" (known: ${[...endpointNames].join(', ')})`);
  for (const id of Object.keys(options.deployments)) if (!deploymentIds.has(id)) throw optionsError(`deployments.${id}`, `unknown deployment "${id}" (known: ${[...deploymentIds].join(', ')})`);

  const resolved = new Map<string, Partial<DepthSettings>>();
  for (const [id, target] of targets) {
    const layers: [string, TargetOverride | undefined][] = [
      [`endpoints.${target.endpoint.name}`, options.endpoints[target.endpoint.name]],
      [`deployments.${id}`, options.deployments[id]],
    ];
    const settings: Partial<Record<ProbeDepth, unknown>> = {};
    for (const depth of PROBE_DEPTHS) {
      let merged: Record<string, unknown> | undefined = options.probes[depth];
      let where = `probes.${depth}`;
      for (const [path, layer] of layers) {
        const override = layer?.probes?.[depth];
        if (override === undefined) continue;
        where = `${path}.probes.${depth}`;
        merged = override === false ? undefined : { ...merged, ...override };
      }
      if (merged === undefined) continue;
      const parsed = probeSchemas[depth].safeParse(merged);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw optionsError([where, ...issue.path].join('.'), issue.message);
      }
      settings[depth] = parsed.data;
    }
    resolved.set(id, settings as Partial<DepthSettings>);
  }
  const latencyTargets = new Map<string, number>();
  for (const [id, target] of targets) {
    const ms = options.deployments[id]?.latencyTargetMs ?? options.endpoints[target.endpoint.name]?.latencyTargetMs;
    if (ms !== undefined) latencyTargets.set(id, ms);
  }
  return {
    settings: (target, depth) => resolved.get(target.deploymentId)?.[depth],
    latencyTargetMs: (id) => latencyTargets.get(id) ?? options.latencyTargetMs,
  };
}
