// A same-document navigation (#fragment, pushState, replaceState: what every client-side router
// does) changes the URL, not the document: refs and the diff base survive it, and an action's report
// says `url` changed, not `navigated`. A new document still makes older refs stale.
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { rpcFailure, useBoundSessions } from '../helpers/boundSession.js';
import { refOf } from '../helpers/snapshotRefs.js';

const suite = useServiceSuite();

interface Report {
  ok: boolean;
  navigated?: true;
  title?: string;
  url?: string;
  observed?: { snapshot: string; since?: number; note?: string };
}
interface Snapshot {
  snapshot: string;
  revision: number;
  since?: number;
  note?: string;
}

const bound = useBoundSessions(suite);

async function open() {
  const s = await bound('/router');
  const call = <T = Report>(method: string, params: Record<string, unknown> = {}) =>
    s.call<T>(method, params);
  const snapshot = (params: Record<string, unknown> = {}) => call<Snapshot>('page.snapshot', params);
  return { call, snapshot };
}

describe('a same-document navigation keeps the document', () => {
  it('a #fragment link: url changed, not navigated; refs of the snapshot before still act', async () => {
    const s = await open();
    const before = (await s.snapshot()).snapshot;
    const report = await s.call('page.click', { ref: refOf(before, /link "Inbox"/) });
    expect(report.navigated).toBeUndefined();
    expect(report.title).toBeUndefined();
    expect(report.url).toBe(`${suite.fixture.url}/router#/inbox`);
    // A ref of the snapshot taken before the route change still names its element.
    expect(await s.call('page.click', { ref: refOf(before, /button "Stay here"/) })).toEqual({ ok: true });
    expect((await s.call<{ text: string }>('page.text', { selector: '#out' })).text).toBe('stayed 1');
    expect((await s.call<{ text: string }>('page.text', { selector: '#view h2' })).text).toBe('inbox');
  });

  it('pushState and replaceState: refs hold, and observe answers a diff, not the whole snapshot', async () => {
    const s = await open();
    const before = (await s.snapshot()).snapshot;
    const pushed = await s.call('page.click', { ref: refOf(before, /button "Archive view"/), observe: true });
    expect(pushed.navigated).toBeUndefined();
    expect(pushed.url).toBe(`${suite.fixture.url}/router?view=archive`);
    expect(pushed.observed?.note).toBeUndefined();
    expect(pushed.observed?.since).toBeDefined();
    expect(pushed.observed?.snapshot).toContain('heading "archive"');
    expect(pushed.observed?.snapshot).not.toContain('link "Sent"');
    const replaced = await s.call('page.click', { ref: refOf(before, /button "Drafts view"/) });
    expect(replaced.navigated).toBeUndefined();
    expect(replaced.url).toBe(`${suite.fixture.url}/router?view=drafts`);
    // page.snapshot since a revision taken before the route changes is a diff too.
    const first = await s.snapshot();
    await s.call('page.click', { ref: refOf(first.snapshot, /link "Sent"/) });
    const diff = await s.snapshot({ since: first.revision });
    expect(diff.note).toBeUndefined();
    expect(diff.since).toBe(first.revision);
    expect(diff.snapshot).toContain('heading "sent"');
  });

  it('history back over a pushState entry stays in the document too', async () => {
    const s = await open();
    const before = (await s.snapshot()).snapshot;
    await s.call('page.click', { ref: refOf(before, /button "Archive view"/) });
    await s.call('page.back');
    expect(await s.call('page.click', { ref: refOf(before, /button "Stay here"/) })).toEqual({ ok: true });
  });

  it('a new document still makes older refs stale and is reported as navigated', async () => {
    const s = await open();
    const before = await s.snapshot();
    const report = await s.call('page.click', { ref: refOf(before.snapshot, /link "Leave"/) });
    expect(report).toMatchObject({ navigated: true, title: 'Widgets B' });
    const error = await rpcFailure(
      s.call('page.click', { ref: refOf(before.snapshot, /button "Stay here"/) }),
      -32013,
    );
    expect(error.message).toContain('navigated away');
    const whole = await s.snapshot({ since: before.revision });
    expect(whole.note).toContain('navigated away');
  });
});
