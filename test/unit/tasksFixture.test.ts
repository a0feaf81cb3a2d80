// The fixture shop of the agent task suite (test/fixtures/routes/tasks.ts) over plain HTTP: a run is
// named by ?run= and kept in a cookie, and what the bench checks (deletions, logins, registrations,
// downloads, sign-ups) is what the server recorded for that run — including refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { TASK_ITEMS, TASK_REPORT_BYTES, TASK_USER, taskRun } from '../fixtures/routes/tasks.js';

let fx: FixtureServer;
beforeAll(async () => {
  fx = await startFixtureServer();
});
afterAll(async () => {
  await fx.close();
});

const get = (path: string, cookie = '') =>
  fetch(`${fx.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
const post = (path: string, body: string, cookie = '', type = 'application/x-www-form-urlencoded') =>
  fetch(`${fx.url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': type, ...(cookie ? { cookie } : {}) },
    redirect: 'manual',
  });

describe('tasks fixture', () => {
  it('refuses a page without a run, and one with a malformed run', async () => {
    expect((await get('/tasks/shop')).status).toBe(400);
    expect((await get('/tasks/shop?run=a%20b')).status).toBe(400);
  });

  it('keeps the run in a cookie that later requests carry', async () => {
    const res = await get('/tasks/shop?run=unit-cookie');
    expect(res.headers.get('set-cookie')).toMatch(/^taskrun=unit-cookie; Path=\/tasks/);
    expect((await get('/tasks/help', 'taskrun=unit-cookie')).status).toBe(200);
  });

  it('searches the catalogue', async () => {
    const page = await (await get('/tasks/shop?run=unit-search&q=kettle')).text();
    expect(page).toContain('3 results');
    expect(page).toContain('Copper Kettle</a> <span class="price">€39.50');
    expect(page).not.toContain('Copper Pan');
  });

  it('deletes an item of this run only, and 404s one that is not there', async () => {
    const ok = await post('/tasks/api/items/delete', 'Gamma', 'taskrun=unit-del', 'text/plain');
    expect(ok.status).toBe(200);
    expect(taskRun('unit-del').items).toEqual(TASK_ITEMS.filter((n) => n !== 'Gamma'));
    expect(taskRun('unit-other').items).toEqual(TASK_ITEMS);
    expect((await post('/tasks/api/items/delete', 'Gamma', 'taskrun=unit-del', 'text/plain')).status).toBe(
      404,
    );
  });

  it('signs in with the right password only, and the profile needs the login cookie of the same run', async () => {
    const wrong = await post('/tasks/login', 'username=ada&password=nope', 'taskrun=unit-login');
    expect(wrong.status).toBe(401);
    expect(taskRun('unit-login').loggedIn).toBeNull();
    expect((await get('/tasks/profile', 'taskrun=unit-login')).status).toBe(302);

    const form = new URLSearchParams({ username: TASK_USER.username, password: TASK_USER.password });
    const ok = await post('/tasks/login', form.toString(), 'taskrun=unit-login');
    expect(ok.status).toBe(303);
    const sid = /tsid=(\w+)/.exec(ok.headers.get('set-cookie') ?? '')?.[1];
    expect(sid).toBeDefined();
    const profile = await get('/tasks/profile', `taskrun=unit-login; tsid=${sid ?? ''}`);
    expect(profile.status).toBe(200);
    expect(await profile.text()).toContain(`<dt>Member since</dt><dd>${TASK_USER.since}</dd>`);
    expect(taskRun('unit-login').profileViews).toBe(1);
    // Another run's login cookie does not open this run's profile.
    expect((await get('/tasks/profile', `taskrun=unit-else; tsid=${sid ?? ''}`)).status).toBe(302);
  });

  it('refuses a weak password with the rule, then registers', async () => {
    const weak = await post(
      '/tasks/register',
      'username=grace&email=g%40x.test&password=hopper',
      'taskrun=unit-reg',
    );
    expect(weak.status).toBe(422);
    const page = await weak.text();
    expect(page).toContain('Password must be at least 10 characters and contain a digit.');
    expect(page).toContain('value="grace"');
    expect(taskRun('unit-reg').registered).toBeNull();
    const ok = await post(
      '/tasks/register',
      'username=grace&email=g%40x.test&password=hopper-1906',
      'taskrun=unit-reg',
    );
    expect(ok.status).toBe(200);
    expect(taskRun('unit-reg')).toMatchObject({ registerAttempts: 2, registered: { username: 'grace' } });
  });

  it('serves the report as an attachment of its announced size and counts it', async () => {
    const res = await get('/tasks/files/report-october.csv', 'taskrun=unit-dl');
    expect(res.headers.get('content-disposition')).toContain('report-october.csv');
    expect((await res.arrayBuffer()).byteLength).toBe(TASK_REPORT_BYTES);
    expect(taskRun('unit-dl').downloads).toBe(1);
  });

  it('records a sign-up, and refuses one that is not JSON', async () => {
    const body = JSON.stringify({
      name: 'A',
      email: 'a@x.test',
      plan: 'Team',
      terms: true,
      file: 'a.png',
      bytes: 70,
    });
    expect((await post('/tasks/api/signup', body, 'taskrun=unit-signup', 'application/json')).status).toBe(
      200,
    );
    expect(taskRun('unit-signup').signup).toMatchObject({ plan: 'Team', terms: true, bytes: 70 });
    expect((await post('/tasks/api/signup', 'nope', 'taskrun=unit-bad', 'application/json')).status).toBe(
      400,
    );
    expect(taskRun('unit-bad').signup).toBeNull();
  });

  it('answers the run state as JSON', async () => {
    const state = (await (await get('/tasks/api/state?run=unit-state')).json()) as { items: string[] };
    expect(state.items).toEqual(TASK_ITEMS);
  });
});
