import type { Page, Route, WebSocketRoute } from 'playwright-core';
import type { UrlPolicy } from '../browser/network/urlPolicy.js';

/**
 * Removes WebRTC from a document: the CDP_URL browser was not launched by the service, so it lacks
 * WEBRTC_LAUNCH_ARGS, and its UDP (ICE checks, STUN, TURN, mDNS) never meets a route. Run in every
 * new document (init script) and in the current one when a tab is guarded.
 */
const REMOVE_WEBRTC = `(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate',
    'RTCSessionDescription', 'RTCRtpSender', 'RTCRtpReceiver', 'RTCRtpTransceiver', 'RTCIceTransport',
    'RTCDtlsTransport', 'RTCSctpTransport', 'RTCCertificate']) {
    if (name in globalThis && !delete globalThis[name]) throw new Error(name + ' could not be removed');
  }
})();`;

/**
 * Holds a tab of the CDP_URL browser to the allow-list for as long as the service's connection to
 * that browser lasts: every request through a page route (which does not see redirect hops), every
 * page WebSocket through a WebSocket route (page routes never see them), and no WebRTC. Installed
 * once per page, by tabs.open before the first navigation and by tabs.attach.
 */
export async function guardTab(page: Page, policy: UrlPolicy): Promise<void> {
  await page.route('**/*', (route: Route) => {
    const verdict = policy.checkRequest(route.request().url());
    return verdict.allowed ? route.fallback() : route.abort('blockedbyclient');
  });
  await page.routeWebSocket(/./, (ws: WebSocketRoute) => {
    const verdict = policy.checkRequest(ws.url());
    // 1008: policy violation, the close code for a refused connection.
    if (verdict.allowed) ws.connectToServer();
    else return ws.close({ code: 1008, reason: 'blocked by the allow-list' });
  });
  await page.addInitScript({ content: REMOVE_WEBRTC });
  // Frames already loaded got no init script: remove WebRTC from each of them now.
  await Promise.all(page.frames().map((frame) => frame.evaluate(REMOVE_WEBRTC)));
}
