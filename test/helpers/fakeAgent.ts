// The smallest agent of the hub (WebSocket /agents): it registers with the secret and says ready.
import { WebSocket } from 'ws';

export interface FakeAgent {
  clientId: string;
  /** Sends one protocol message (a status, a JSON-RPC reply). */
  send(message: unknown): void;
  /** The next evaluate request the service sent it. */
  evaluation(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Connects, registers `tools` under `clientId` with `secret`, and declares itself ready. */
export async function connectFakeAgent(
  serviceUrl: string,
  options: { clientId: string; secret: string; tools: string[] },
): Promise<FakeAgent> {
  const ws = new WebSocket(`${serviceUrl.replace(/^http/, 'ws')}/agents`);
  const messages: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data: Buffer) => {
    messages.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const taken = new Set<Record<string, unknown>>();
  const next = async (
    match: (m: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = messages.find((m) => !taken.has(m) && match(m));
      if (found !== undefined) {
        taken.add(found);
        return found;
      }
      if (Date.now() > deadline) throw new Error(`the agent got no ${what}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  };
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  await next((m) => m.type === 'welcome', 'welcome');
  ws.send(
    JSON.stringify({
      type: 'register',
      clientId: options.clientId,
      secretKey: options.secret,
      capabilities: { tools: options.tools, maxConcurrency: 2, version: 'console-test-1.0.0' },
    }),
  );
  const ack = await next((m) => m.type === 'registration_ack', 'registration_ack');
  if (ack.accepted === false) throw new Error(`the agent was refused: ${JSON.stringify(ack)}`);
  ws.send(JSON.stringify({ type: 'ready', timestamp: new Date().toISOString() }));
  return {
    clientId: options.clientId,
    send: (message) => ws.send(JSON.stringify(message)),
    evaluation: () => next((m) => m.method === 'evaluate', 'evaluate request'),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
