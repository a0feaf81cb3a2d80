// The peers' ports are refused to pages as the replica's own are (docs/deployment.md, "Topology"):
// listed peers on their address and every spelling of this machine when they are local, template
// peers on every name the template makes; the HTTP port, REPLICA_AGENT_PORT and a fixed
// EGRESS_PROXY_PORT; and the balancer's addresses (BALANCER_URLS) on their ports. Other ports of
// those hosts, and other hosts, stay as the allow-list says.
// test/integration/peerPorts.test.ts shows it with a real page.
import { describe, expect, it } from 'vitest';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';
import { loadConfig } from '../../src/config/config.js';
import { balancerEndpoints, peerEndpoints } from '../../src/replicas/peerPorts.js';

const EVERYTHING = /^https?:\/\//;

function policyFor(env: Record<string, string>): UrlPolicy {
  const config = loadConfig({ API_KEY: 'k-0123456789abcdef', REPLICA_ID: 'r1', ...env });
  const policy = new UrlPolicy(EVERYTHING);
  for (const endpoint of peerEndpoints(config)) policy.refuseEndpoint(endpoint);
  return policy;
}
const allowed = (policy: UrlPolicy, url: string): boolean => policy.checkNavigation(url).allowed;

describe("the peers' ports", () => {
  it('listed peers: their HTTP port, the agent port and a fixed egress port, on their address only', () => {
    const policy = policyFor({
      REPLICA_PEERS: 'r2=http://10.0.0.5:3000,r3=http://r3.internal:3337',
      REPLICA_AGENT_PORT: '3338',
    });
    for (const url of [
      'http://10.0.0.5:3000/rpc',
      'http://10.0.0.5:3338/',
      'http://[::ffff:10.0.0.5]:3000/',
      'http://0x0a.0.0.5:3000/',
      'http://r3.internal:3337/healthz',
      'http://R3.internal.:3338/',
      'ws://r3.internal:3337/rpc',
    ]) {
      const verdict = policy.checkNavigation(url);
      expect(verdict.allowed, url).toBe(false);
      if (!verdict.allowed) expect(verdict.reason).toMatch(/another replica \(REPLICA_PEERS\)/);
    }
    // Not a peer's port, or not a peer: the list decides.
    for (const url of [
      'http://10.0.0.5:8080/',
      'http://10.0.0.6:3000/',
      'http://r3.internal:80/',
      'http://r2:3000/',
    ])
      expect(allowed(policy, url), url).toBe(true);
  });

  it('a loopback peer is refused under every spelling of this machine', () => {
    const policy = policyFor({ REPLICA_PEERS: 'r2=http://127.0.0.1:4555' });
    for (const host of ['127.0.0.1', 'localhost', 'api.localhost', '127.1.2.3', '[::1]', '2130706433'])
      expect(allowed(policy, `http://${host}:4555/rpc`), host).toBe(false);
    expect(allowed(policy, 'http://127.0.0.1:4556/')).toBe(true);
    // A resolved address (the egress proxy's second check) is judged the same way.
    expect(policy.refusedEndpoint('::1', 4555)).toBeDefined();
    expect(policy.refusedEndpoint('198.51.100.7', 4555)).toBeUndefined();
  });

  it('template peers: every name the template makes, and the headless Service name, on the shared ports', () => {
    const policy = policyFor({
      REPLICA_ID: 'pwj-1',
      REPLICA_PEERS: 'http://{id}.pwj.ns.svc.cluster.local:3337',
      REPLICA_IDS: 'pwj-0,pwj-1,pwj-2',
      REPLICA_AGENT_PORT: '3338',
      EGRESS_PROXY_PORT: '3339',
      BROWSER_ENDPOINTS: 'ws://browser-0:3000/',
    });
    for (const url of [
      'http://pwj-0.pwj.ns.svc.cluster.local:3337/rpc',
      'http://pwj-7.pwj.ns.svc.cluster.local:3338/',
      'http://pwj-2.pwj.ns.svc.cluster.local:3339/',
      'http://PWJ-0.pwj.ns.svc.cluster.local.:3337/',
      'http://pwj.ns.svc.cluster.local:3337/',
    ])
      expect(allowed(policy, url), url).toBe(false);
    for (const url of [
      'http://pwj-0.pwj.ns.svc.cluster.local:8080/',
      'http://a.b.pwj.ns.svc.cluster.local:3337/',
      'http://pwj-0.pwj.ns.svc.cluster.local.evil.test:3337/',
      'http://pwj-0Xpwj.ns.svc.cluster.local:3337/',
      'http://other.ns.svc.cluster.local:3337/',
    ])
      expect(allowed(policy, url), url).toBe(true);
  });

  it('without REPLICA_PEERS nothing is refused, and a single service refuses no peer', () => {
    expect(peerEndpoints(loadConfig({ API_KEY: 'k-0123456789abcdef' }))).toEqual([]);
    expect(allowed(policyFor({}), 'http://10.0.0.5:3000/')).toBe(true);
  });
});

describe("the balancer's addresses (BALANCER_URLS)", () => {
  const policyWith = (urls: string): UrlPolicy => {
    const config = loadConfig({ API_KEY: 'k-0123456789abcdef', BALANCER_URLS: urls });
    const policy = new UrlPolicy(EVERYTHING);
    for (const endpoint of balancerEndpoints(config)) policy.refuseEndpoint(endpoint);
    return policy;
  };

  it('refuses each listed host on its port, a loopback one under every spelling of this machine', () => {
    const policy = policyWith('http://127.0.0.2:4600, http://lb.example.test, https://[::1]:4700');
    for (const url of [
      'http://127.0.0.2:4600/rpc',
      'http://localhost:4600/',
      'http://127.0.0.1:4600/',
      'ws://[::1]:4600/rpc',
      'http://lb.example.test/rpc',
      'http://LB.example.test.:80/',
      'https://127.0.0.3:4700/',
    ]) {
      const verdict = policy.checkNavigation(url);
      expect(verdict.allowed, url).toBe(false);
      if (!verdict.allowed) expect(verdict.reason).toMatch(/the load balancer's address \(BALANCER_URLS\)/);
    }
    // Another port or another host: the list decides.
    for (const url of [
      'http://127.0.0.2:4601/',
      'http://lb.example.test:8080/',
      'http://other.example.test/',
    ])
      expect(allowed(policy, url), url).toBe(true);
    // A resolved address (the egress proxy's second check) is judged the same way.
    expect(policy.refusedEndpoint('127.0.0.2', 4600)).toBeDefined();
  });

  it('takes origins only, and none by default', () => {
    expect(balancerEndpoints(loadConfig({ API_KEY: 'k-0123456789abcdef' }))).toEqual([]);
    for (const bad of ['ftp://lb.example.test', 'http://lb.example.test/rpc', 'lb.example.test:80'])
      expect(() => loadConfig({ API_KEY: 'k-0123456789abcdef', BALANCER_URLS: bad }), bad).toThrow(
        /^BALANCER_URLS:/,
      );
  });
});
