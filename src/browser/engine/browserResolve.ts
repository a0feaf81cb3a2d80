import { accessSync, constants } from 'node:fs';
import { chromium } from 'playwright-core';

export interface ResolvedBrowser {
  executablePath: string;
  source: 'CHROMIUM_PATH' | 'playwright' | 'system';
}

/** System Chromium locations, tried in order after CHROMIUM_PATH and Playwright's own download. */
export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * CHROMIUM_PATH, then Playwright's downloaded Chromium if installed, then the system's. Returns the
 * list of places looked at when none is found, so the start-up error can say what to do.
 */
export function resolveBrowser(chromiumPath: string | undefined): ResolvedBrowser | { tried: string[] } {
  if (chromiumPath) {
    return executable(chromiumPath)
      ? { executablePath: chromiumPath, source: 'CHROMIUM_PATH' }
      : { tried: [chromiumPath] };
  }
  const tried: string[] = [];
  const bundled = chromium.executablePath();
  tried.push(bundled);
  if (bundled && executable(bundled)) return { executablePath: bundled, source: 'playwright' };
  for (const path of SYSTEM_CHROMIUM_PATHS) {
    tried.push(path);
    if (executable(path)) return { executablePath: path, source: 'system' };
  }
  return { tried };
}

/**
 * WebRTC is UDP (ICE checks with page-chosen bytes, STUN, TURN, mDNS for host candidates) and name
 * look-ups through the system resolver, none of which passes the egress proxy. With this policy
 * Chromium gathers no UDP candidate at all unless the proxy carries UDP (it does not): WebRTC may
 * only use TURN over TCP, and that is a CONNECT the proxy checks. (Chromium 156 ignores the
 * `--force-webrtc-ip-handling-policy` spelling.) test/integration/webrtc.test.ts proves each vector.
 */
export const WEBRTC_LAUNCH_ARGS: readonly string[] = ['--webrtc-ip-handling-policy=disable_non_proxied_udp'];

/**
 * navigator.webdriver is false, as in a browser a person uses (and as Playwright MCP launches it):
 * Chromium's AutomationControlled blink feature, which Playwright's automation switches turn on, is
 * off. Sites that refuse automation should not refuse the agents the allow-list lets in. Chromium
 * honours only the last --disable-blink-features and Playwright passes none.
 */
export const AUTOMATION_LAUNCH_ARGS: readonly string[] = ['--disable-blink-features=AutomationControlled'];

/**
 * Playwright's default flags the service leaves out. `--disable-ipc-flooding-protection` turns off
 * Chromium's limit on a page's history and location changes (200 in 10 s, as in a browser a person
 * uses): without the limit, a page doing 20,000 pushState and hash changes a second sends each one
 * over the browser pipe every session shares, and other tenants' calls time out behind them.
 */
export const IGNORED_DEFAULT_ARGS: readonly string[] = ['--disable-ipc-flooding-protection'];

/** Chromium flags: a closed network stalls Chromium's background services, so they are off. */
export function launchArgs(runningAsRoot: boolean): string[] {
  const args = [
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-default-apps',
    '--disable-domain-reliability',
    '--disable-quic',
    ...WEBRTC_LAUNCH_ARGS,
    ...AUTOMATION_LAUNCH_ARGS,
  ];
  if (runningAsRoot) args.push('--no-sandbox');
  return args;
}

/**
 * The features Playwright (playwright-core 1.65) disables with its own `--disable-features`.
 * Chromium honours only the last `--disable-features` switch, so the service's switch repeats
 * them; test/integration/browserFlags.test.ts fails when Playwright's list is not covered.
 */
export const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * The service's process model. Headless Chromium (new headless, Chromium 156) opens a window per
 * BrowserContext and, for each window, starts a renderer for the omnibox popup's WebUI
 * (chrome://omnibox-popup.top-chrome): about 50 MiB PSS per session that a headless page never
 * shows. With these off, a session costs its page's renderer only. SpareRendererForSitePerProcess
 * keeps one renderer started ahead for the next navigation: a process that comes and goes with the
 * timing of navigations and closes (measured: 4 contexts on a page each, 9 renderers with it and 8
 * without), so the service's process count, and what leak checks compare, moved by one. Unknown
 * feature names are ignored, so a browser without them (Playwright's headless shell) is unaffected.
 */
export const LEAN_DISABLED_FEATURES: readonly string[] = [
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
  'SpareRendererForSitePerProcess',
];

/** The flags the service launches its browser with: launchArgs plus the lean process model. */
export function serviceLaunchArgs(runningAsRoot: boolean): string[] {
  const features = [...PLAYWRIGHT_DISABLED_FEATURES, ...LEAN_DISABLED_FEATURES];
  return [...launchArgs(runningAsRoot), `--disable-features=${features.join(',')}`];
}
