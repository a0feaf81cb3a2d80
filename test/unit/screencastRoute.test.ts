// GET /sessions/{id}/screencast over a fake hub: a viewer that does not read loses frames, never
// queues them; the stream ends with the hub's end; an unknown session is a 404.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { screencastRouter, type ScreencastSource } from '../../src/http/screencast.js';
import { waitFor } from '../helpers/testService.js';

type Viewer = Parameters<ScreencastSource['watch']>[2];

class FakeHub implements ScreencastSource {
  viewer: Viewer | undefined;
  watch(sessionId: string, _caller: unknown, viewer: Viewer): (() => void) | 'not_found' | 'full' {
    if (sessionId !== 's_known') return 'not_found';
    this.viewer = viewer;
    return () => {
      this.viewer = undefined;
    };
  }
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(hub: FakeHub): Promise<number> {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.principal = { id: 'key:test', admin: false };
    next();
  });
  app.use(screencastRouter(hub, createLogger('silent')));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  return (server?.address() as AddressInfo).port;
}

const FRAME_BYTES = 256 * 1024;
const frame = (seq: number) => ({
  data: 'A'.repeat(FRAME_BYTES),
  width: 10,
  height: 10,
  url: 'http://127.0.0.1/',
  seq,
  timestamp: seq,
});

describe('the screencast route', () => {
  it('drops the frames a viewer cannot take yet, and says how many', async () => {
    const hub = new FakeHub();
    const port = await serve(hub);
    let text = '';
    const response = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(`http://127.0.0.1:${port}/sessions/s_known/screencast`, resolve),
    );
    expect(response.statusCode).toBe(200);
    response.setEncoding('utf8');
    response.pause();
    await waitFor(() => hub.viewer !== undefined, 5000, 'the viewer');
    // 50 frames in one go: the first fills the socket's buffer, the rest are dropped.
    for (let seq = 1; seq <= 50; seq++) hub.viewer?.frame(frame(seq));
    response.on('data', (chunk: string) => (text += chunk));
    response.resume();
    await waitFor(
      () => (text.match(/event: frame/g) ?? []).length >= 1 && text.endsWith('\n\n'),
      5000,
      'frame 1',
    );
    hub.viewer?.frame(frame(51));
    await waitFor(() => text.includes('id: 51\n'), 5000, 'frame 51');
    const frames = [...text.matchAll(/id: (\d+)\nevent: frame\ndata: (.*)\n\n/g)].map((m) => ({
      seq: Number(m[1]),
      dropped: (JSON.parse(m[2] ?? '{}') as { dropped: number }).dropped,
    }));
    expect(frames.map((f) => f.seq)).toEqual([1, 51]);
    expect(frames[1]?.dropped).toBe(49);
    hub.viewer?.end('closed');
    await new Promise((resolve) => response.once('end', resolve));
    expect(text).toMatch(/event: end\ndata: \{"reason":"closed"\}\n\n$/);
  });

  it('answers 404 for a session the hub does not give', async () => {
    const port = await serve(new FakeHub());
    const res = await fetch(`http://127.0.0.1:${port}/sessions/s_other/screencast`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32010);
  });
});
