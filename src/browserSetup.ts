import type { Config } from './config/config.js';
import type { Logger } from './observability/logger.js';
import { BrowserHost } from './browser/engine/browserHost.js';
import { serviceLaunchArgs, type ResolvedBrowser } from './browser/engine/browserResolve.js';
import type { BrowserSource } from './browser/engine/browserSource.js';
import { BrowserTier } from './browser/engine/browserTier.js';
import { EgressProxy } from './browser/network/egressProxy.js';
import type { HostLookup } from './browser/network/resolveUpstream.js';
import { ProxyCredentials } from './browser/engine/proxyCredentials.js';
import type { UrlPolicy } from './browser/network/urlPolicy.js';

export interface StartedBrowser {
  browser: BrowserSource;
  proxy: EgressProxy;
  /** Set with BROWSER_ENDPOINTS: the remote tier (its endpoints' state for logs and tests). */
  tier: BrowserTier | undefined;
}

/**
 * The egress proxy and where contexts are made: the local Chromium (the default), or the browser
 * servers of BROWSER_ENDPOINTS, whose contexts reach the proxy with per-context logins. `resolve`
 * finds the local Chromium (it throws when there is none); remote browsers do not need one.
 * `lookup` resolves the proxy's upstream names (the system resolver unless a test answers them).
 */
export async function startBrowser(
  config: Config,
  policy: UrlPolicy,
  resolve: () => ResolvedBrowser,
  logger: Logger,
  lookup?: HostLookup,
): Promise<StartedBrowser> {
  const remote = config.browserEndpoints.length > 0;
  const resolved = remote ? undefined : resolve();
  const credentials = remote ? new ProxyCredentials() : undefined;
  const proxy = new EgressProxy(
    policy,
    (b) =>
      logger.debug(
        { url: b.url, reason: b.reason, ...(b.context === undefined ? {} : { sessionId: b.context }) },
        'request blocked by the allow-list',
      ),
    {
      host: config.egressProxyHost,
      port: config.egressProxyPort,
      advertisedHost: config.egressProxyAdvertisedHost,
      credentials,
      lookup,
    },
  );
  const proxyServer = await proxy.start();
  // A page must not reach a browser server's own endpoint (as it must not reach CDP_URL's).
  for (const endpoint of config.browserEndpoints) {
    const url = new URL(endpoint.url);
    policy.refuseOwnPort(Number(url.port || (url.protocol === 'wss:' ? 443 : 80)), url.hostname);
  }
  const runningAsRoot = process.getuid?.() === 0;
  const tier =
    credentials === undefined
      ? undefined
      : new BrowserTier({
          endpoints: config.browserEndpoints,
          proxyServer,
          credentials,
          connectTimeoutMs: config.browserLaunchTimeoutMs,
          launchArgs: serviceLaunchArgs(runningAsRoot),
          logger,
        });
  const browser: BrowserSource =
    tier ??
    new BrowserHost({
      executablePath: resolved?.executablePath ?? '',
      headless: config.headless,
      args: serviceLaunchArgs(runningAsRoot),
      proxyServer,
      launchTimeoutMs: config.browserLaunchTimeoutMs,
      logger,
    });
  try {
    await browser.start();
  } catch (error) {
    await proxy.close();
    throw error;
  }
  if (resolved !== undefined)
    logger.info({ executablePath: resolved.executablePath, source: resolved.source }, 'browser resolved');
  else logger.info({ endpoints: tier?.describe() }, 'browser tier: remote browser servers');
  return { browser, proxy, tier };
}
