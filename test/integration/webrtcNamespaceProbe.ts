// Run by webrtc.test.ts inside a network namespace of its own (`unshare -n -m`: lo plus a dummy
// interface, nothing can leave) with /etc/resolv.conf bind-mounted to a nameserver on 127.0.0.53.
// Launches Chromium with the service's flags (argv[2] = 'service') or without WEBRTC_LAUNCH_ARGS
// ('control'), behind the egress proxy, runs every WebRTC vector, and prints on stdout one JSON line:
// the DNS queries, mDNS packets and decoy datagrams it saw.
import dgram from 'node:dgram';
import { chromium } from 'playwright-core';
import {
  WEBRTC_LAUNCH_ARGS,
  resolveBrowser,
  serviceLaunchArgs,
} from '../../src/browser/engine/browserResolve.js';
import { EgressProxy } from '../../src/browser/network/egressProxy.js';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';
import { DEFAULT_ALLOW_HOST_REGEX } from '../../src/config/configKeys.js';
import { startFixtureServer } from '../fixtures/fixtureServer.js';

/** The address of the dummy interface the namespace script gives the namespace. */
const DUMMY_ADDRESS = '10.9.9.1';
/** ICE gathering ends at once when UDP is refused; an unanswered STUN/TURN server is given up within this. */
const GATHERING_TIMEOUT_MS = 20_000;
/** The control's first packets arrive within this; the service's flags must produce none at all. */
const CONTROL_PACKET_TIMEOUT_MS = 20_000;
const POLL_MS = 50;

async function bound(
  type: 'udp4',
  port: number,
  address: string,
): Promise<{ socket: dgram.Socket; seen: Buffer[] }> {
  const socket = dgram.createSocket({ type, reuseAddr: true });
  const seen: Buffer[] = [];
  socket.on('message', (message) => seen.push(message));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, address, () => resolve());
  });
  return { socket, seen };
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode !== 'service' && mode !== 'control')
    throw new Error('usage: webrtcNamespaceProbe service|control');
  const dns = await bound('udp4', 53, '127.0.0.53');
  const mdns = await bound('udp4', 5353, '0.0.0.0');
  mdns.socket.addMembership('224.0.0.251', DUMMY_ADDRESS);
  const decoy = await bound('udp4', 0, '127.0.0.2');
  const fixture = await startFixtureServer();
  const proxy = new EgressProxy(new UrlPolicy(new RegExp(DEFAULT_ALLOW_HOST_REGEX)));
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved) throw new Error(`no Chromium; looked at ${resolved.tried.join(', ')}`);
  const args = serviceLaunchArgs(process.getuid?.() === 0).filter(
    (arg) => mode === 'service' || !WEBRTC_LAUNCH_ARGS.includes(arg),
  );
  const browser = await chromium.launch({
    executablePath: resolved.executablePath,
    args,
    proxy: { server: await proxy.start() },
  });
  const reports: unknown[] = [];
  try {
    const decoyPort = decoy.socket.address().port;
    const vectors = [
      `vector=host&host=127.0.0.2&port=${decoyPort}`,
      `vector=stun&host=stun.exfil.test&port=3478`,
      `vector=turn&host=turn.exfil.test&port=3478`,
    ];
    const pages = [];
    for (const query of vectors) {
      const page = await browser.newPage();
      await page.goto(`${fixture.url}/webrtc?${query}`);
      pages.push(page);
    }
    if (mode === 'service') {
      // Gathering completes at once when UDP is refused: each report is the evidence that WebRTC ran.
      for (const page of pages) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no report within ${GATHERING_TIMEOUT_MS} ms`)),
            GATHERING_TIMEOUT_MS,
          );
        });
        reports.push(
          await Promise.race([page.evaluate('window.webrtcReport'), late]).finally(() => clearTimeout(timer)),
        );
      }
    } else {
      const until = Date.now() + CONTROL_PACKET_TIMEOUT_MS;
      while (
        Date.now() < until &&
        (dns.seen.length === 0 || decoy.seen.length === 0 || mdns.seen.length === 0)
      )
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await browser.close();
    await proxy.close();
    await fixture.close();
  }
  process.stdout.write(
    JSON.stringify({
      dns: dns.seen.map((m) => m.toString('latin1').replace(/[^\x20-\x7e]+/g, '.')),
      mdns: mdns.seen.length,
      decoy: decoy.seen.length,
      reports,
    }) + '\n',
  );
  for (const s of [dns, mdns, decoy]) s.socket.close();
}

await main();
