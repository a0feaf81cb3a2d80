// The service's Chromium flags: its one --disable-features switch keeps every feature Playwright
// disables (Chromium honours only the last such switch) and adds the lean process model, and no
// browser-UI WebUI renderer is started for a session's window.
import { describe, expect, it } from 'vitest';
import {
  AUTOMATION_LAUNCH_ARGS,
  LEAN_DISABLED_FEATURES,
  WEBRTC_LAUNCH_ARGS,
} from '../../src/browser/engine/browserResolve.js';
import { cmdline } from '../../bench/lib/proc.js';
import { browserProcesses, chromiumTree } from '../helpers/procfs.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite({ POOL_SIZE: '0' });

/** Every --disable-features list on the browser's command line, in order. */
function disabledFeatureSwitches(): string[][] {
  const browsers = browserProcesses();
  expect(browsers).toHaveLength(1);
  return cmdline(browsers[0]?.pid ?? -1)
    .filter((arg) => arg.startsWith('--disable-features='))
    .map((arg) => arg.slice('--disable-features='.length).split(','));
}

describe('browser flags', () => {
  it('the last --disable-features (the one Chromium honours) keeps all of Playwright’s and adds the lean ones', () => {
    const switches = disabledFeatureSwitches();
    // Playwright's own switch first, the service's last.
    expect(switches.length).toBeGreaterThanOrEqual(2);
    const playwrights = switches[0] ?? [];
    const honoured = switches.at(-1) ?? [];
    expect(playwrights.length).toBeGreaterThan(0);
    for (const feature of playwrights) expect(honoured).toContain(feature);
    for (const feature of LEAN_DISABLED_FEATURES) expect(honoured).toContain(feature);
  });

  it('WebRTC may not use UDP the egress proxy does not carry (webrtc.test.ts proves each vector)', () => {
    const browsers = browserProcesses();
    expect(browsers).toHaveLength(1);
    const args = cmdline(browsers[0]?.pid ?? -1);
    expect(WEBRTC_LAUNCH_ARGS).toEqual(['--webrtc-ip-handling-policy=disable_non_proxied_udp']);
    for (const flag of WEBRTC_LAUNCH_ARGS) expect(args).toContain(flag);
  });

  it('navigator.webdriver is false: the AutomationControlled blink feature is off', async () => {
    const browsers = browserProcesses();
    expect(browsers).toHaveLength(1);
    const args = cmdline(browsers[0]?.pid ?? -1);
    expect(AUTOMATION_LAUNCH_ARGS).toEqual(['--disable-blink-features=AutomationControlled']);
    // Chromium honours the last switch of a name: ours must be the only one.
    expect(args.filter((arg) => arg.startsWith('--disable-blink-features'))).toEqual([
      ...AUTOMATION_LAUNCH_ARGS,
    ]);
    const session_id = await suite.open('/static');
    const read = (expression: string) =>
      suite.service.call<{ result: unknown }>('page.evaluate', { session_id, expression });
    expect(await read('navigator.webdriver')).toEqual({ result: false });
    // Read by the page's own script as well as by ours, in a frame too.
    expect(
      await read(
        "new Promise((resolve) => { const f = document.createElement('iframe'); f.src = '/static'; f.onload = () => resolve(f.contentWindow.navigator.webdriver); document.body.append(f); })",
      ),
    ).toEqual({ result: false });
    await suite.service.call('session.close', { session_id });
  });

  it('sessions run without a browser-UI (top-chrome WebUI) renderer per window', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {});
      await suite.service.call('page.goto', {
        session_id,
        url: `${suite.fixture.url}/static`,
        waitUntil: 'load',
      });
      ids.push(session_id);
    }
    const renderers = chromiumTree().filter((p) => p.cmdline.includes('--type=renderer'));
    expect(renderers.length).toBeGreaterThanOrEqual(2);
    expect(renderers.filter((p) => p.cmdline.includes('--top-chrome-webui'))).toEqual([]);
    for (const session_id of ids) await suite.service.call('session.close', { session_id });
  });
});
