import net from 'node:net';

/**
 * Ports handed out below Linux's ephemeral range (32768–60999 by default): a port picked there
 * and released could be taken by any outgoing connection on a busy machine (a browser's, a
 * fetch's) before the child process that was given it binds it.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 } as const;
const PORT_ATTEMPTS = 50;

function bindable(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago on 127.0.0.1, outside the range outgoing connections use. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt += 1) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${PORT_RANGE.from}-${PORT_RANGE.to} after ${PORT_ATTEMPTS} tries`);
}
