/**
 * The Kubernetes manifests, validated against the Kubernetes OpenAPI schemas that ship compiled
 * inside the `kubernetes-models` npm package (no cluster, no network), then checked against the
 * image, the production config and each other.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { parseDockerfile } from './dockerfile.js';
import { unknownFields } from './kubernetes-fields.js';
import { CONFIG_PATH, PRODUCTION_CONFIG, PRODUCTION_ENV, ROOT, drainSeconds, productionConfig, readRepo, readYaml, readYamlDocuments } from './support.js';

const DIR = 'deploy/kubernetes';
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
};

const files = readdirSync(new URL(`../kubernetes/`, import.meta.url)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const manifests = files.flatMap((file) => readYamlDocuments(`${DIR}/${file}`).map((doc) => ({ file, doc })));
const find = (kind: string) => manifests.find((m) => m.doc.kind === kind)!.doc;
const deployment = find('Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];

describe('Kubernetes manifests', () => {
  it('are valid against the Kubernetes OpenAPI schemas', () => {
    expect(manifests.map((m) => m.doc.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Secret', 'Service']);
    for (const { file, doc } of manifests) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind}`).toBeDefined();
      expect(() => new Model(doc).validate(), file).not.toThrow();
    }
  });

  it('the validator rejects a broken manifest (so the check above can fail)', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    delete broken.spec.selector;
    expect(() => new Deployment(broken).validate()).toThrow(/selector|containerPort/);
  });

  it('use no field the schemas do not define', () => {
    expect(unknownFields(manifests, ROOT)).toEqual([]);
  }, 60_000);

  it('the field check reports a misspelt field (so the check above can fail)', () => {
    const misspelt = structuredClone(deployment);
    misspelt.spec.template.spec.containers[0].readinesProbe = misspelt.spec.template.spec.containers[0].readinessProbe;
    const problems = unknownFields([{ file: 'deployment.yaml', doc: misspelt }], ROOT);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^deployment\.yaml: .*readinesProbe.*does not exist in type 'IContainer'/);
  }, 60_000);

  it('are all listed in kustomization.yaml', () => {
    expect([...readYaml(`${DIR}/kustomization.yaml`).resources].sort()).toEqual([...files].sort());
  });

  it('carry the production config unchanged and mount it where the image reads it', () => {
    expect(find('ConfigMap').data['switchyard.yaml']).toBe(readRepo(PRODUCTION_CONFIG));
    const configVolume = pod.volumes.find((v: any) => v.configMap?.name === find('ConfigMap').metadata.name);
    const mount = container.volumeMounts.find((m: any) => m.name === configVolume.name);
    expect(`${mount.mountPath}/switchyard.yaml`).toBe(CONFIG_PATH);
    expect(mount.readOnly).toBe(true);
    expect(container.args).toEqual(['serve', '--config', CONFIG_PATH]);
  });

  it('take the keys the config needs from the Secret', () => {
    const secret = find('Secret');
    expect(container.envFrom).toContainEqual({ secretRef: { name: secret.metadata.name } });
    expect(Object.keys(secret.stringData).sort()).toEqual(Object.keys(PRODUCTION_ENV).sort());
    const env = { ...secret.stringData, ...Object.fromEntries(container.env.map((e: any) => [e.name, e.value])) };
    expect(() => productionConfig(env)).not.toThrow();
  });

  it('probe liveness on /health and readiness on /ready at the config port', () => {
    const http = container.ports.find((p: any) => p.name === 'http');
    expect(http.containerPort).toBe(productionConfig().server!.port);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(find('Service').spec.ports[0].targetPort).toBe('http');
  });

  it('give the pod longer to stop than the preStop sleep plus the drain', () => {
    const [sleep, seconds] = container.lifecycle.preStop.exec.command;
    expect(sleep).toBe('sleep');
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(seconds) + drainSeconds());
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });

  it('select the same pods from the Deployment, the Service and the PodDisruptionBudget', () => {
    const labels = deployment.spec.template.metadata.labels;
    for (const selector of [deployment.spec.selector.matchLabels, find('Service').spec.selector, find('PodDisruptionBudget').spec.selector.matchLabels]) {
      for (const [key, value] of Object.entries(selector)) expect(labels[key]).toBe(value);
    }
    expect(deployment.spec.replicas).toBeGreaterThan(find('PodDisruptionBudget').spec.maxUnavailable);
  });

  it('run as the image user, non-root, on a read-only root filesystem, with memory requests below the limit', () => {
    const user = parseDockerfile(readRepo('Dockerfile')).stages[1].instructions.filter((i) => i.keyword === 'USER').at(-1)!.args;
    expect(`${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`).toBe(user);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    const mebibytes = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1]);
    expect(mebibytes(container.resources.requests.memory)).toBeLessThan(mebibytes(container.resources.limits.memory));
  });
});
