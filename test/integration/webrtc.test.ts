// WebRTC is UDP the egress proxy never sees: a page could aim ICE checks (with page-chosen bytes),
// STUN and TURN requests at any address. The service's Chromium sends none; a browser launched with
// the same flags minus WEBRTC_LAUNCH_ARGS (the control) shows each vector does reach the decoy.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import {
  PLAYWRIGHT_DISABLED_FEATURES,
  WEBRTC_LAUNCH_ARGS,
  launchArgs,
  resolveBrowser,
} from '../../src/browser/engine/browserResolve.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, waitFor, type TestService } from '../helpers/testService.js';

/** The control browser retransmits its checks for seconds; the first datagram comes well within this. */
const CONTROL_DATAGRAM_TIMEOUT_MS = 20_000;

/** ICE gathering ends at once when UDP is refused; a browser that tries an unanswering STUN/TURN server gives up within this. */
const GATHERING_TIMEOUT_MS = 20_000;

/** The namespace probe launches a browser and runs three vectors; past this it is stuck. */
const NAMESPACE_PROBE_TIMEOUT_MS = 90_000;

/**
 * A network namespace of the test's own: lo plus an ifb device standing in for a LAN (this kernel
 * has no dummy module), a multicast route on it so mDNS has somewhere to go, and /etc/resolv.conf
 * bind-mounted (mount namespace) to a nameserver on 127.0.0.53 that webrtcNamespaceProbe.ts binds.
 * Nothing in it can leave the machine.
 */
const NAMESPACE_SCRIPT = `set -e
ip link set lo up
ip link add lan0 type ifb
ip addr add 10.9.9.1/24 dev lan0
ip link set lan0 up
ip route add 224.0.0.0/4 dev lan0
mount --bind "$1" /etc/resolv.conf
exec npx tsx test/integration/webrtcNamespaceProbe.ts "$2"`;

interface NamespaceProbe {
  dns: string[];
  mdns: number;
  decoy: number;
  reports: Report[];
}

async function probeInNamespace(mode: 'service' | 'control'): Promise<NamespaceProbe> {
  const dir = mkdtempSync(join(tmpdir(), 'webrtc-ns-'));
  try {
    const resolvConf = join(dir, 'resolv.conf');
    writeFileSync(resolvConf, 'nameserver 127.0.0.53\n');
    const { stdout } = await promisify(execFile)(
      '/usr/bin/unshare',
      ['-n', '-m', 'sh', '-c', NAMESPACE_SCRIPT, 'probe', resolvConf, mode],
      { cwd: join(import.meta.dirname, '../..'), timeout: NAMESPACE_PROBE_TIMEOUT_MS },
    );
    const last = stdout.trim().split('\n').at(-1) ?? '';
    return JSON.parse(last) as NamespaceProbe;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const VECTORS = ['host', 'stun', 'turn'] as const;
type Vector = (typeof VECTORS)[number];

interface UdpDecoy {
  port: number;
  datagrams: Buffer[];
  close(): Promise<void>;
}

/** A UDP socket on 127.0.0.2 (outside the allow-list) that keeps every datagram it receives. */
async function startUdpDecoy(): Promise<UdpDecoy> {
  const socket = dgram.createSocket('udp4');
  const datagrams: Buffer[] = [];
  socket.on('message', (message) => datagrams.push(message));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.2', () => resolve());
  });
  return {
    port: socket.address().port,
    datagrams,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

interface Report {
  supported: boolean;
  candidates: string[];
}

let fixture: FixtureServer;
let service: TestService;
const decoys = new Map<Vector, UdpDecoy>();

function decoy(vector: Vector): UdpDecoy {
  const found = decoys.get(vector);
  if (found === undefined) throw new Error(`no decoy for ${vector}`);
  return found;
}

function pagePath(vector: Vector): string {
  return `/webrtc?vector=${vector}&host=127.0.0.2&port=${decoy(vector).port}`;
}

beforeAll(async () => {
  fixture = await startFixtureServer();
  for (const vector of VECTORS) decoys.set(vector, await startUdpDecoy());
  service = await startTestService({ POOL_SIZE: '0' });
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
  for (const d of decoys.values()) await d.close();
});

describe('WebRTC and UDP', () => {
  it('the decoys count datagrams (a datagram sent from the test reaches them)', async () => {
    const probe = dgram.createSocket('udp4');
    try {
      for (const vector of VECTORS) {
        const before = decoy(vector).datagrams.length;
        await new Promise<void>((resolve, reject) =>
          probe.send('probe', decoy(vector).port, '127.0.0.2', (error) =>
            error ? reject(error) : resolve(),
          ),
        );
        await waitFor(
          () => decoy(vector).datagrams.length > before,
          5000,
          `the probe at the ${vector} decoy`,
        );
        decoy(vector).datagrams.length = 0;
      }
    } finally {
      probe.close();
    }
  });

  it.each(VECTORS)(
    'the service’s Chromium sends no UDP for the %s vector: no candidate is gathered and the decoy gets 0 datagrams',
    async (vector) => {
      const { session_id } = await service.call<{ session_id: string }>('session.create', {});
      await service.call('page.goto', {
        session_id,
        url: `${fixture.url}${pagePath(vector)}`,
        waitUntil: 'load',
      });
      // Kept as a value, so a failed gathering still shows what reached the decoy first.
      const report = await service
        .call<{ result: Report }>('page.evaluate', {
          session_id,
          expression: '() => window.webrtcReport',
          timeout: GATHERING_TIMEOUT_MS,
        })
        .catch((error: unknown) => error);
      await service.call('session.close', { session_id });
      expect(decoy(vector).datagrams.length).toBe(0);
      // Gathering is complete: with UDP refused there is nothing to gather and nothing to check.
      expect(report).toEqual({ result: { supported: true, candidates: [] } });
    },
  );

  it(
    'in a network namespace of its own: no DNS query (stun:/turn: by name), no mDNS, no datagram; the control sends all three',
    { timeout: 2 * NAMESPACE_PROBE_TIMEOUT_MS },
    async () => {
      const service = await probeInNamespace('service');
      expect(service.reports).toEqual(VECTORS.map(() => ({ supported: true, candidates: [] })));
      expect({ dns: service.dns, mdns: service.mdns, decoy: service.decoy }).toEqual({
        dns: [],
        mdns: 0,
        decoy: 0,
      });
      const control = await probeInNamespace('control');
      expect(control.dns.some((query) => query.includes('.exfil.test'))).toBe(true);
      expect(control.mdns).toBeGreaterThan(0);
      expect(control.decoy).toBeGreaterThan(0);
    },
  );

  describe('control: the same flags without WEBRTC_LAUNCH_ARGS', () => {
    let control: Browser | undefined;
    beforeAll(async () => {
      const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
      if ('tried' in resolved) throw new Error(`no Chromium; looked at ${resolved.tried.join(', ')}`);
      const args = launchArgs(process.getuid?.() === 0).filter((arg) => !WEBRTC_LAUNCH_ARGS.includes(arg));
      // Host candidates as raw addresses: the control must not multicast mDNS onto the machine's network.
      args.push(
        `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebRtcHideLocalIpsWithMdns'].join(',')}`,
      );
      control = await chromium.launch({ executablePath: resolved.executablePath, args });
    });
    afterAll(async () => {
      await control?.close();
    });

    it.each(VECTORS)('the %s vector reaches the decoy from a browser without the flag', async (vector) => {
      if (control === undefined) throw new Error('no control browser');
      const page = await control.newPage();
      try {
        await page.goto(`${fixture.url}${pagePath(vector)}`);
        await waitFor(
          () => decoy(vector).datagrams.length > 0,
          CONTROL_DATAGRAM_TIMEOUT_MS,
          `a datagram at the ${vector} decoy`,
        );
        if (vector === 'host') {
          // A STUN binding request (type 0x0001) whose USERNAME carries the page-chosen ufrag.
          const first = decoy(vector).datagrams[0] ?? Buffer.alloc(0);
          expect(first.readUInt16BE(0)).toBe(0x0001);
          expect(first.toString('latin1')).toContain('EXFILtrated');
        }
      } finally {
        await page.close();
      }
    });
  });
});
