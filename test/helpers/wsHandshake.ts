import WebSocket from 'ws';

/**
 * Opens a WebSocket to `url` (from `localAddress`, a loopback address of the test's choosing, with
 * `headers`): resolves with the open socket, or with the HTTP status of a refused handshake; fails
 * after `waitMs` without an answer. The socket is pushed to `sockets` for the test to terminate.
 */
export function wsHandshake(
  url: string,
  options: { localAddress: string; headers: Record<string, string> },
  sockets: WebSocket[],
  waitMs: number,
): Promise<WebSocket | number> {
  const ws = new WebSocket(url, options);
  sockets.push(ws);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no handshake answer in time')), waitMs);
    ws.once('open', () => {
      clearTimeout(timer);
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
