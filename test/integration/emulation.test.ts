// Emulation at session.create (issue 14): a Playwright device by name, locale, timezone, colour
// scheme, geolocation with its permission, each seen by the page; the permissions left out on
// purpose refused; session.addInitScript seen by the page and its frames before their own scripts,
// within its limits.
import { describe, expect, it } from 'vitest';
import { MAX_INIT_SCRIPTS } from '../../src/methods/session/storage.js';
import { bindSession, rpcFailure, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

/** A session created with these params, on /state/mobile (laid out for the device's width). */
async function created(params: Record<string, unknown>): Promise<BoundSession> {
  const { session_id } = await suite.service.call<{ session_id: string }>('session.create', params);
  const s = bindSession(suite.service, session_id);
  await s.call('page.goto', { url: `${suite.fixture.url}/state/mobile`, waitUntil: 'load' });
  return s;
}

describe('session.create emulation', () => {
  it('takes a device by name: viewport, touch, mobile user agent and device scale factor', async () => {
    const s = await created({ device: 'iPhone 13' });
    try {
      const seen = await s.evaluate<{ width: number; touch: number; ua: string; dpr: number }>(
        '({ width: innerWidth, touch: navigator.maxTouchPoints, ua: navigator.userAgent, dpr: devicePixelRatio })',
      );
      expect(seen.width).toBe(390);
      expect(seen.touch).toBeGreaterThan(0);
      expect(seen.ua).toContain('iPhone');
      expect(seen.dpr).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('lets viewport and userAgent given beside a device win', async () => {
    const s = await created({
      device: 'iPhone 13',
      viewport: { width: 700, height: 500 },
      userAgent: 'agent/1',
    });
    try {
      expect(await s.evaluate('[innerWidth, navigator.userAgent]')).toEqual([700, 'agent/1']);
    } finally {
      await s.close();
    }
  });

  it('sets locale, timezone, colour scheme, and a geolocation the page can read once granted', async () => {
    const s = await created({
      locale: 'de-DE',
      timezoneId: 'Asia/Tokyo',
      colorScheme: 'dark',
      geolocation: { latitude: 48.85, longitude: 2.35 },
      permissions: ['geolocation'],
    });
    try {
      expect(
        await s.evaluate(
          "[navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone, matchMedia('(prefers-color-scheme: dark)').matches]",
        ),
      ).toEqual(['de-DE', 'Asia/Tokyo', true]);
      expect(
        await s.evaluate(
          'new Promise((ok, no) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, p.coords.longitude]), (e) => no(new Error(e.message))))',
        ),
      ).toEqual([48.85, 2.35]);
    } finally {
      await s.close();
    }
  });

  it('refuses an unknown device (with close names), a bad timezone, and the permissions left out', async () => {
    const create = (params: Record<string, unknown>) => suite.service.call('session.create', params);
    const device = await rpcFailure(create({ device: 'iPhone 99' }), -32602);
    expect(device.message).toContain("no device named 'iPhone 99'");
    expect(device.message).toContain("close: 'iPhone");
    const zone = await rpcFailure(create({ timezoneId: 'Mars/Olympus' }), -32602);
    expect(zone.data?.errors).toEqual([expect.objectContaining({ path: '/timezoneId' })]);
    // Camera and microphone are the host's (the clipboard ones are the session's own: clipboard.test.ts).
    for (const permission of ['camera', 'microphone', 'midi'])
      await rpcFailure(create({ permissions: [permission] }), -32602);
    await rpcFailure(create({ locale: 'not a locale' }), -32602);
    await rpcFailure(create({ geolocation: { latitude: 91, longitude: 0 } }), -32602);
    expect((await suite.service.call<{ sessions: unknown[] }>('session.list')).sessions).toEqual([]);
  });
});

describe('session.addInitScript', () => {
  it('runs before the page’s own scripts, in the page and in its frames, from the next document on', async () => {
    const s = await created({});
    try {
      expect(
        await s.call('session.addInitScript', { script: 'window.__early = document.readyState;' }),
      ).toEqual({
        count: 1,
      });
      // Not on the document that was already there.
      expect(await s.evaluate('typeof window.__early')).toBe('undefined');
      await s.call('page.goto', { url: `${suite.fixture.url}/frames`, waitUntil: 'load' });
      expect(await s.evaluate('window.__early')).toBe('loading');
      expect(
        await s.evaluate(
          "Array.from(document.querySelectorAll('iframe')).slice(0, 1).map((f) => f.contentWindow.__early)",
        ),
      ).toEqual(['loading']);
    } finally {
      await s.close();
    }
  });

  it(`holds at most ${MAX_INIT_SCRIPTS} scripts per session, and refuses an empty one`, async () => {
    const s = await created({});
    try {
      for (let i = 1; i <= MAX_INIT_SCRIPTS; i++)
        expect(await s.call('session.addInitScript', { script: `window.__n = ${i};` })).toEqual({ count: i });
      const over = await s.fails('session.addInitScript', { script: 'window.__n = 0;' }, -32003);
      expect(over.message).toContain(`${MAX_INIT_SCRIPTS} init scripts`);
      await s.fails('session.addInitScript', { script: '' }, -32602);
    } finally {
      await s.close();
    }
  });
});
