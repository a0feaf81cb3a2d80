// The deployment files against schemas and against each other (docs/deployment.md, "Linting"):
// every document of deploy/k8s/*.yaml validates against its Kubernetes OpenAPI schema
// (kubernetes-models 4.5.1), and a kind the table below does not know fails, so a new manifest
// cannot slip past the check. Then what no schema sees: each Service selects some workload's pods
// on a port those pods name, the autoscaler targets a workload that exists, the service's probes hit
// /healthz and /readyz on its own port, every environment variable a service container (and a
// compose replica) sets is a real configuration key, the whole environment loads as a valid
// configuration, and with BROWSER_ENDPOINTS the egress proxy is where the browser servers can reach
// it. test/unit/deploy.test.ts holds the compose schema, haproxy -c and the per-field checks.
import { readdirSync, readFileSync } from 'node:fs';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { K8S_MAX_REPLICAS } from '../../scripts/haproxyConfig.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';
import { CONFIG_KEYS } from '../../src/config/configKeys.js';
import { balancerEndpoints } from '../../src/replicas/peerPorts.js';
import { at, type Node } from '../helpers/tree.js';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

const list = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : []);

/** A model class of kubernetes-models: its apiVersion/kind, and validate() against the schema. */
interface ModelClass<T> {
  apiVersion: string;
  kind: string;
  new (data: T): { validate(): void };
}
function schemaOf<T>(model: ModelClass<T>): [string, (doc: unknown) => void] {
  return [`${model.apiVersion} ${model.kind}`, (doc) => new model(doc as T).validate()];
}

/** The kinds deploy/k8s may hold. Another kind is refused until it is added here (with its model). */
const SCHEMAS = new Map<string, (doc: unknown) => void>([
  schemaOf(Namespace),
  schemaOf(Service),
  schemaOf(ConfigMap),
  schemaOf(StatefulSet),
  schemaOf(Deployment),
  schemaOf(HorizontalPodAutoscaler),
  schemaOf(NetworkPolicy),
]);

/** Throws unless `doc` is of a listed kind and valid against that kind's schema. */
function validateManifest(doc: Node): void {
  const validate = SCHEMAS.get(`${String(doc.apiVersion)} ${String(doc.kind)}`);
  if (validate === undefined)
    throw new Error(`${String(doc.apiVersion)} ${String(doc.kind)} has no schema in the table of this test`);
  validate(doc);
}

const files = readdirSync(new URL('deploy/k8s/', root)).filter((f) => f.endsWith('.yaml'));
const docs: { file: string; doc: Node }[] = files.flatMap((file) =>
  parseAllDocuments(read(`deploy/k8s/${file}`)).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    return { file, doc: d.toJS() as Node };
  }),
);
const ofKind = (...kinds: string[]): Node[] =>
  docs.map((d) => d.doc).filter((d) => kinds.includes(String(d.kind)));
const nameOf = (doc: Node): string => String(at(doc, 'metadata', 'name'));
const workloads = (): Node[] => ofKind('Deployment', 'StatefulSet');
const containers = (workload: Node): Node[] => list(at(workload, 'spec', 'template', 'spec', 'containers'));
/** The service's own containers: its image, running its own entry point (not `run-server`). */
const serviceContainers = (): { workload: Node; container: Node }[] =>
  workloads().flatMap((workload) =>
    containers(workload)
      .filter((c) => String(c.image).startsWith('playwright-jsonrpc:') && c.command === undefined)
      .map((container) => ({ workload, container })),
  );

/** Names a container sets in its environment that are not configuration keys of the service. */
function unknownKeys(names: Iterable<string>): string[] {
  return [...names].filter((name) => !Object.hasOwn(CONFIG_KEYS, name));
}

/** The Service's problems with the workloads: none selects its pods, or its ports name no port of theirs. */
function serviceProblems(service: Node, all: Node[]): string[] {
  const selector = (at(service, 'spec', 'selector') ?? {}) as Node;
  const selected = all.filter((w) => {
    const labels = (at(w, 'spec', 'template', 'metadata', 'labels') ?? {}) as Node;
    return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  });
  if (selected.length === 0) return [`Service ${nameOf(service)} selects no workload's pods`];
  const problems: string[] = [];
  for (const port of list(at(service, 'spec', 'ports'))) {
    const target = port.targetPort ?? port.port;
    const named = selected.some((w) =>
      containers(w).some((c) =>
        list(c.ports).some((p) =>
          typeof target === 'string' ? p.name === target : p.containerPort === target,
        ),
      ),
    );
    if (!named) problems.push(`Service ${nameOf(service)} port ${String(target)} is no port of its pods`);
  }
  return problems;
}

/**
 * A service container's environment as the pod would see it: `fieldRef metadata.name` is the pod's
 * name, a Secret's key a test key, and `$(NAME)` expands to an earlier variable (Kubernetes' rule).
 */
function podEnvironment(container: Node, podName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of list(container.env)) {
    const name = String(e.name);
    let value: string;
    if (typeof e.value === 'string') value = e.value;
    else if (at(e, 'valueFrom', 'fieldRef', 'fieldPath') === 'metadata.name') value = podName;
    else if (at(e, 'valueFrom', 'secretKeyRef') !== undefined) value = 'k-0123456789abcdef';
    else throw new Error(`${name}: a value this test cannot resolve`);
    env[name] = value.replace(/\$\(([A-Z_][A-Z0-9_]*)\)/g, (whole, ref: string) => env[ref] ?? whole);
  }
  return env;
}

/** With remote browsers, where the egress proxy must be for them to reach it; [] when it is. */
function egressProblems(config: Config, ownAddress: string | undefined): string[] {
  if (config.browserEndpoints.length === 0) return [];
  const problems: string[] = [];
  if (/^(127\.|::1$|localhost$)/.test(config.egressProxyHost))
    problems.push(`EGRESS_PROXY_HOST ${config.egressProxyHost} is loopback: no browser server reaches it`);
  if (config.egressProxyPort === 0)
    problems.push('EGRESS_PROXY_PORT is 0: a free port no network rule can name');
  const own = ownAddress === undefined ? undefined : new URL(ownAddress).hostname;
  if (config.egressProxyAdvertisedHost !== own)
    problems.push(
      `EGRESS_PROXY_ADVERTISED_HOST ${config.egressProxyAdvertisedHost} is not this replica's own name (${String(own)})`,
    );
  return problems;
}

/**
 * Who an Ingress NetworkPolicy admits to `port` of its pods: the `app` label of each pod selector
 * of the rules naming that port, '*' for a rule that admits anyone (no `from`, or a namespace or
 * address block), and undefined when the policy does not select `workload`'s pods for Ingress.
 */
function admittedTo(policy: Node, workload: Node, port: number): string[] | undefined {
  const selector = (at(policy, 'spec', 'podSelector', 'matchLabels') ?? {}) as Node;
  const labels = (at(workload, 'spec', 'template', 'metadata', 'labels') ?? {}) as Node;
  const selects = Object.entries(selector).every(([k, v]) => labels[k] === v);
  const types = at(policy, 'spec', 'policyTypes');
  if (!selects || !Array.isArray(types) || !types.includes('Ingress')) return undefined;
  const admitted = new Set<string>();
  for (const rule of list(at(policy, 'spec', 'ingress'))) {
    const ports = list(rule.ports);
    if (ports.length > 0 && !ports.some((p) => p.port === port)) continue;
    const from = list(rule.from);
    if (from.length === 0) admitted.add('*');
    for (const peer of from) {
      const app = at(peer, 'podSelector', 'matchLabels', 'app');
      if (peer.namespaceSelector !== undefined || peer.ipBlock !== undefined || typeof app !== 'string')
        admitted.add('*');
      else admitted.add(app);
    }
  }
  return [...admitted].sort();
}

describe('deploy/k8s against the Kubernetes schemas', () => {
  it('every document of every manifest validates against the schema of its kind', () => {
    expect(docs.length).toBeGreaterThanOrEqual(10);
    for (const { file, doc } of docs)
      expect(() => validateManifest(doc), `${file}: ${String(doc.kind)}/${nameOf(doc)}`).not.toThrow();
  });

  it('refuses a kind the table does not know, and documents with broken fields', () => {
    const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'x' } };
    expect(() => validateManifest(ingress)).toThrow(/no schema/);
    const pwj = ofKind('StatefulSet').find((d) => nameOf(d) === 'pwj');
    if (pwj === undefined) throw new Error('no StatefulSet pwj');
    const words = structuredClone(pwj);
    (words.spec as Node).replicas = 'three';
    expect(() => validateManifest(words)).toThrow(/replicas/);
    const objectPort = structuredClone(pwj);
    const probe = at(containers(objectPort)[0], 'readinessProbe', 'httpGet') as Node;
    probe.port = { name: 'http' };
    expect(() => validateManifest(objectPort)).toThrow(/port/);
    const unnamed = structuredClone(pwj);
    Object.assign(containers(unnamed)[0] ?? {}, { env: [{ value: 'x' }] });
    expect(() => validateManifest(unnamed)).toThrow(/name/);
    const hpa = structuredClone(ofKind('HorizontalPodAutoscaler')[0] ?? {});
    delete (hpa.spec as Node).maxReplicas;
    expect(() => validateManifest(hpa)).toThrow(/maxReplicas/);
  });
});

describe('deploy/k8s cross-references', () => {
  it("each Service selects some workload's pods, on ports those pods name", () => {
    for (const service of ofKind('Service')) expect(serviceProblems(service, workloads())).toEqual([]);
    // The check can fail: a selector no pod template carries, a target port no container names.
    const stray = structuredClone(ofKind('Service')[0] ?? {});
    (stray.spec as Node).selector = { app: 'nobody' };
    expect(serviceProblems(stray, workloads())).toEqual([expect.stringMatching(/selects no workload/)]);
    const port = structuredClone(ofKind('Service')[0] ?? {});
    Object.assign(list(at(port, 'spec', 'ports'))[0] ?? {}, { targetPort: 'htp' });
    expect(serviceProblems(port, workloads())).toEqual([expect.stringMatching(/htp is no port/)]);
  });

  it('the autoscaler targets a workload that exists, by its kind and name', () => {
    const hpas = ofKind('HorizontalPodAutoscaler');
    expect(hpas.length).toBeGreaterThan(0);
    for (const hpa of hpas) {
      const ref = at(hpa, 'spec', 'scaleTargetRef') as Node;
      const target = workloads().filter(
        (w) => w.kind === ref.kind && w.apiVersion === ref.apiVersion && nameOf(w) === ref.name,
      );
      expect(target, JSON.stringify(ref)).toHaveLength(1);
    }
  });

  it("the service's probes hit /healthz (startup, liveness) and /readyz (readiness) on its own port", () => {
    const found = serviceContainers();
    expect(found.length).toBeGreaterThan(0);
    for (const { container } of found) {
      const port = list(container.ports).find((p) => p.name === 'http');
      const env = new Map(list(container.env).map((e) => [e.name, e.value]));
      expect(String(port?.containerPort)).toBe(env.get('PORT'));
      for (const [probe, path] of [
        ['startupProbe', '/healthz'],
        ['livenessProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
      ] as const) {
        expect(at(container, probe, 'httpGet', 'path'), probe).toBe(path);
        expect(at(container, probe, 'httpGet', 'port'), probe).toBe('http');
      }
    }
  });

  it('every variable a service container sets is a configuration key, and a misspelt one is caught', () => {
    for (const { container } of serviceContainers())
      expect(unknownKeys(list(container.env).map((e) => String(e.name)))).toEqual([]);
    expect(unknownKeys(['MAX_SESSIONS', 'MAX_SESION', 'REPLICA_PEER'])).toEqual([
      'MAX_SESION',
      'REPLICA_PEER',
    ]);
  });

  it("a pod's whole environment loads, and the browser servers can reach its egress proxy", () => {
    for (const { workload, container } of serviceContainers()) {
      const podName = `${nameOf(workload)}-1`;
      const config = loadConfig(podEnvironment(container, podName));
      expect(config.replicaId).toBe(podName);
      expect(config.browserEndpoints.length).toBeGreaterThan(0);
      const own = config.replicaPeers.addressOf(podName);
      expect(egressProblems(config, own)).toEqual([]);
      // The browser servers' NetworkPolicy lets them reach that port on the replicas' pods.
      const policy = ofKind('NetworkPolicy').find((p) => nameOf(p) === 'browser');
      const toReplicas = list(at(policy, 'spec', 'egress')).find(
        (rule) => at(rule, 'to', 0, 'podSelector', 'matchLabels', 'app') === 'pwj',
      );
      expect(list(toReplicas?.ports).map((p) => p.port)).toEqual([config.egressProxyPort]);
      expect(list(container.ports).map((p) => p.containerPort)).toContain(config.egressProxyPort);
    }
    // The check can fail: the default (loopback, a free port, no advertised name) is refused.
    const loopback = loadConfig({ API_KEY: 'k-0123456789abcdef', BROWSER_ENDPOINTS: 'ws://b:1/' });
    expect(egressProblems(loopback, 'http://pwj-1.pwj:3337')).toHaveLength(3);
  });

  it("the balancer's public name, which the allow-list admits, is refused to pages (BALANCER_URLS)", () => {
    for (const { workload, container } of serviceContainers()) {
      const podName = `${nameOf(workload)}-1`;
      const env = podEnvironment(container, podName);
      const config = loadConfig(env);
      const own = new URL(config.replicaPeers.addressOf(podName) ?? 'http://none').hostname;
      // ALLOWED_HOSTS: the pod's own name (peers call it) and the names clients reach the balancer by.
      const publicNames = (env.ALLOWED_HOSTS ?? '').split(',').filter((h) => h !== '' && h !== own);
      expect(publicNames.length).toBeGreaterThan(0);
      const policy = new UrlPolicy(config.allowHostRegex);
      for (const endpoint of balancerEndpoints(config)) policy.refuseEndpoint(endpoint);
      for (const name of publicNames) {
        const verdict = policy.checkNavigation(`http://${name}/rpc`);
        expect(verdict.allowed, name).toBe(false);
        if (!verdict.allowed) expect(verdict.reason).toMatch(/BALANCER_URLS/);
        // Without BALANCER_URLS the allow-list alone would let a page open it.
        expect(new UrlPolicy(config.allowHostRegex).checkNavigation(`http://${name}/rpc`).allowed).toBe(true);
      }
    }
  });

  it("REPLICA_IDS lists exactly the servers HAProxy's ConfigMap knows, the StatefulSet's pods among them", () => {
    const pwj = workloads().find((w) => nameOf(w) === 'pwj');
    if (pwj === undefined) throw new Error('no StatefulSet pwj');
    const [container] = containers(pwj);
    const ids = String(list(container?.env).find((e) => e.name === 'REPLICA_IDS')?.value).split(',');
    const cfg = String(
      at(
        ofKind('ConfigMap').find((c) => nameOf(c) === 'haproxy'),
        'data',
        'haproxy.cfg',
      ),
    );
    const servers = [...new Set([...cfg.matchAll(/^ {2}server (\S+) /gm)].map((m) => m[1]))];
    expect(ids).toEqual(servers);
    expect(ids).toHaveLength(K8S_MAX_REPLICAS);
    const replicas = Number(at(pwj, 'spec', 'replicas'));
    for (let i = 0; i < replicas; i++) expect(ids).toContain(`${nameOf(pwj)}-${i}`);
  });
});

describe('deploy/k8s: who reaches the replicas', () => {
  const pwj = workloads().find((w) => nameOf(w) === 'pwj');
  if (pwj === undefined) throw new Error('no StatefulSet pwj');
  const policies = ofKind('NetworkPolicy');
  const appOf = (w: Node | undefined): unknown => at(w, 'spec', 'template', 'metadata', 'labels', 'app');
  /** What the policies selecting pwj's pods admit to `port`, together (undefined: none selects them). */
  const admitted = (all: Node[], port: number): string[] | undefined => {
    const each = all.map((p) => admittedTo(p, pwj, port)).filter((a) => a !== undefined);
    return each.length === 0 ? undefined : [...new Set(each.flat())].sort();
  };

  it('only the balancer and the replicas reach the API port; each other port only its one client', () => {
    const balancer = workloads().find((w) => nameOf(w) === 'haproxy');
    const browsers = workloads().find((w) => nameOf(w) === 'browser');
    const [container] = containers(pwj);
    const env = new Map(list(container?.env).map((e) => [e.name, e.value]));
    const port = (name: string): number =>
      Number(list(container?.ports).find((p) => p.name === name)?.containerPort);
    // The API port trusts X-Forwarded-For (TRUSTED_PROXIES): the balancer names the client, and the
    // replicas forward calls to each other; no other pod may connect.
    expect(String(port('http'))).toBe(env.get('PORT'));
    expect(admitted(policies, port('http'))).toEqual([appOf(balancer), appOf(pwj)].sort());
    expect(admitted(policies, port('agent'))).toEqual([appOf(balancer)]);
    expect(String(port('agent'))).toBe(env.get('REPLICA_AGENT_PORT'));
    expect(admitted(policies, port('egress'))).toEqual([appOf(browsers)]);
    // Every port the pods open is named by some rule: a new one is not left to whoever connects.
    for (const p of list(container?.ports))
      expect(admitted(policies, Number(p.containerPort)), String(p.name)).not.toEqual([]);
  });

  it('the check can fail: a rule open to every pod, or no policy at all, is seen', () => {
    const open = structuredClone(policies.find((p) => nameOf(p) === 'pwj') ?? {});
    list(at(open, 'spec', 'ingress')).push({ ports: [{ port: 3337 }] });
    expect(admitted([open], 3337)).toContain('*');
    const anyNamespace = structuredClone(policies.find((p) => nameOf(p) === 'pwj') ?? {});
    list(at(anyNamespace, 'spec', 'ingress', 0, 'from')).push({ namespaceSelector: {} });
    expect(admitted([anyNamespace], 3337)).toContain('*');
    expect(
      admitted(
        policies.filter((p) => nameOf(p) !== 'pwj'),
        3337,
      ),
    ).toBeUndefined();
  });
});

describe('deploy/compose.yaml cross-references', () => {
  // No engine runs here: `docker compose config` is not available, the Compose Specification schema
  // is checked in deploy.test.ts, and these are the references inside the file it cannot see.
  const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as Node;
  const services = (at(compose, 'services') ?? {}) as Record<string, Node>;
  const replicas = Object.entries(services).filter(
    ([, s]) => String(s.image).startsWith('playwright-jsonrpc:') && s.command === undefined,
  );

  /** Services without an image, and depends_on entries naming no service of the file. */
  const composeProblems = (all: Record<string, Node>): string[] =>
    Object.entries(all).flatMap(([name, s]) => [
      ...(typeof s.image === 'string' ? [] : [`${name} has no image`]),
      ...Object.keys(s.depends_on ?? {})
        .filter((dep) => !Object.hasOwn(all, dep))
        .map((dep) => `${name} depends on ${dep}, which is not a service`),
    ]);

  it('every service has an image; every depends_on names a service of the file', () => {
    expect(composeProblems(services)).toEqual([]);
    const broken = structuredClone(services);
    delete broken.browser2;
    expect(composeProblems(broken)).toEqual(
      ['r1', 'r2', 'r3'].map((r) => `${r} depends on browser2, which is not a service`),
    );
  });

  it("each replica's variables are configuration keys, and its browser servers reach its egress proxy", () => {
    expect(replicas.map(([name]) => name)).toEqual(['r1', 'r2', 'r3']);
    for (const [name, s] of replicas) {
      const env = s.environment as Record<string, string>;
      expect(unknownKeys(Object.keys(env)), name).toEqual([]);
      const config = loadConfig({
        ...env,
        API_KEY: 'k-0123456789abcdef',
        ALLOW_HOST_REGEX: '^https://example\\.test/',
        LOG_LEVEL: 'info',
      });
      // Compose names each replica by its service name on the browsers' network.
      expect(egressProblems(config, `http://${name}:3337`)).toEqual([]);
      expect(s.networks).toContain('browsers');
    }
  });
});
