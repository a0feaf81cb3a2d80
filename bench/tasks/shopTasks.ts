// The ten agent tasks of issue 15 on the fixture shop (test/fixtures/routes/tasks.ts), each scripted
// twice as an agent would call the tools: it looks first (a snapshot, a text read), takes the refs
// or values from what it was shown, then acts. The service's scripts use page.act to batch what an
// agent knows it will do next, interactive snapshots, find.*, the dialog policy and action reports;
// the peer's use its own batching tool (browser_fill_form), browser_type's submit, and the snapshot
// each of its actions answers. Each task's check reads the fixture's server-side state or compares
// the answer with the fixture's own value.
import {
  TASK_BALANCE,
  TASK_ORDER_PAGES,
  TASK_PRODUCTS,
  TASK_REPORT_BYTES,
  TASK_REVENUE,
  TASK_STATUSES,
  TASK_SUMMARY,
  TASK_USER,
  TASK_ITEMS,
  type TaskRunState,
} from '../../test/fixtures/routes/tasks.js';
import type { SuiteTask } from '../lib/taskSuite.js';
import { field, matchText, readValue, refOf, see, str } from './agents.js';

export interface TaskContext {
  /** The URL of a fixture path; the first page of a task carries ?run=<id>. */
  url(path: string): string;
  /** The run's server-side state. */
  state(): TaskRunState;
  /** The avatar the signup uploads: a path on disk (the peer) and its bytes (the service). */
  upload: { path: string; name: string; base64: string; bytes: number };
}

/** A shop task: the runner's task with the shop's context. */
export type AgentTask = SuiteTask<TaskContext>;

const expectEqual = (what: string, got: string, want: string): string | null =>
  got === want ? null : `${what}: got "${got}", expected "${want}"`;

/**
 * What the agent looks at first: the interactive view of the page's main landmark. Every shop page
 * has the same banner (five links) and footer around it; an agent that is given a task on the page's
 * content scopes its snapshot to `main`, as it would a find.
 */
const snap = { method: 'page.snapshot', params: { interactive: true, selector: 'main' } };
const goto = (url: string) => ({ method: 'page.goto', params: { url, waitUntil: 'load' } });
const text = (params: Record<string, unknown> = {}) => ({ method: 'page.text', params });
const last = (results: Record<string, unknown>[]): Record<string, unknown> => results.at(-1) ?? {};

const KETTLE = 'Copper Kettle';
const KETTLE_PRICE = TASK_PRODUCTS.find((p) => p.name === KETTLE)?.price ?? '';
const ORDER = '#1037';
const ORDER_STATUS = TASK_STATUSES[37 % TASK_STATUSES.length] ?? '';
const DELETE = 'Gamma';
const SIGNUP = { name: 'Ada Lovelace', email: 'ada@example.com', plan: 'Team' };
const NEWCOMER = { username: 'grace', email: 'grace@example.com', password: 'hopper' };
/** What the agent makes of the server's password rule: longer, with a digit. */
const fixPassword = (error: string, old: string): string =>
  /at least 10 characters/.test(error) && /digit/.test(error) ? `${old}-1906` : old;
const PRICE_RE = (name: string) => new RegExp(`${name}[\\s\\S]{0,120}?(€\\d+(?:\\.\\d+)?)`);
/** The last cell of a row's text: its status. */
const STATUS_RE = new RegExp(`${ORDER}[^\\n]*?(\\w+)\\s*$`, 'm');

export const TASKS: AgentTask[] = [
  {
    id: 'search',
    title: `search the shop for "kettle" and read the price of the ${KETTLE}`,
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/shop')), snap]);
      const s = str(seen, 'snapshot');
      const found = last(
        await a.act([
          { method: 'page.fill', params: { ref: refOf(s, 'textbox', 'Search'), value: 'kettle' } },
          { method: 'page.click', params: { ref: refOf(s, 'button', 'Search') } },
          { method: 'find.byText', params: { text: KETTLE } },
        ]),
      );
      return readValue(matchText(found), PRICE_RE(KETTLE), 'the price');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/shop'));
      await a.tool('browser_type', {
        element: 'Search products',
        target: refOf(s, 'textbox', 'Search'),
        text: 'kettle',
        submit: true,
      });
      const found = await a.tool('browser_find', { text: KETTLE });
      return readValue(found, PRICE_RE(KETTLE), 'the price');
    },
    check: (answer) => expectEqual('price', answer, KETTLE_PRICE),
  },
  {
    id: 'signup',
    title: 'sign up in two steps: name, email, plan (select); then terms (checkbox) and an avatar (upload)',
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/signup')), snap]);
      const s = str(seen, 'snapshot');
      const step2 = last(
        await a.act([
          { method: 'page.fill', params: { ref: refOf(s, 'textbox', 'Full name'), value: SIGNUP.name } },
          { method: 'page.fill', params: { ref: refOf(s, 'textbox', 'Email'), value: SIGNUP.email } },
          { method: 'page.select', params: { ref: refOf(s, 'combobox', 'Plan'), labels: [SIGNUP.plan] } },
          { method: 'page.click', params: { ref: refOf(s, 'button', 'Next') } },
          { method: 'page.snapshot', params: { ...snap.params, since: Number(seen?.revision) } },
        ]),
      );
      const d = str(step2, 'snapshot');
      const done = last(
        await a.act([
          { method: 'page.check', params: { ref: refOf(d, 'checkbox', 'terms') } },
          {
            method: 'page.upload',
            params: {
              ref: refOf(d, 'button', 'Avatar'),
              files: [{ name: c.upload.name, mimeType: 'image/png', base64: c.upload.base64 }],
            },
          },
          { method: 'page.click', params: { ref: refOf(d, 'button', 'Create account') } },
          { expect: { text: 'Account created' } },
          { method: 'find.byText', params: { text: 'Account created' } },
        ]),
      );
      return readValue(matchText(done), /(Account created for [^.\n]+)/, 'the confirmation');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/signup'));
      await a.tool('browser_fill_form', {
        fields: [
          field(s, 'textbox', 'Full name', SIGNUP.name),
          field(s, 'textbox', 'Email', SIGNUP.email),
          field(s, 'combobox', 'Plan', SIGNUP.plan),
        ],
      });
      await a.tool('browser_click', { element: 'Next', target: refOf(s, 'button', 'Next') });
      const d = await see(a);
      await a.tool('browser_fill_form', { fields: [field(d, 'checkbox', 'terms', 'true')] });
      await a.tool('browser_click', { element: 'Avatar', target: refOf(d, 'button', 'Avatar') });
      await a.tool('browser_file_upload', { paths: [c.upload.path] });
      await a.tool('browser_click', {
        element: 'Create account',
        target: refOf(d, 'button', 'Create account'),
      });
      const done = await a.tool('browser_find', { text: 'Account created' });
      return readValue(done, /(Account created for [^."]+)/, 'the confirmation');
    },
    check(answer, c) {
      const s = c.state().signup;
      if (!s) return 'the server got no sign-up';
      const want = { ...SIGNUP, terms: true, file: c.upload.name, bytes: c.upload.bytes };
      const got = {
        name: s.name,
        email: s.email,
        plan: s.plan,
        terms: s.terms,
        file: s.file,
        bytes: s.bytes,
      };
      if (JSON.stringify(got) !== JSON.stringify(want))
        return `the server got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
      return expectEqual('confirmation', answer, `Account created for ${SIGNUP.name}`);
    },
  },
  {
    id: 'confirm-delete',
    title: `delete the saved item "${DELETE}" (a confirm() asks first)`,
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/items')), snap]);
      const ref = refOf(str(seen, 'snapshot'), 'button', `Delete ${DELETE}`);
      // dialog.setPolicy runs outside the session's lock, so it cannot be a step of page.act.
      await a.call('dialog.setPolicy', { policy: { confirm: 'accept' } });
      const clicked = await a.call('page.click', { ref });
      return readValue(
        JSON.stringify(clicked.dialogs),
        /"message":"([^"]+)","outcome":"accepted"/,
        'the dialog',
      );
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/items'));
      const clicked = await a.tool('browser_click', {
        element: `Delete ${DELETE}`,
        target: refOf(s, 'button', `Delete ${DELETE}`),
      });
      const question = readValue(clicked, /"confirm" dialog with message "([^"]+)"/, 'the dialog');
      await a.tool('browser_handle_dialog', { accept: true });
      return question;
    },
    check(answer, c) {
      const left = c.state().items;
      const want = TASK_ITEMS.filter((n) => n !== DELETE);
      if (JSON.stringify(left) !== JSON.stringify(want)) return `the server kept ${left.join(', ')}`;
      return expectEqual('dialog', answer, `Delete ${DELETE}?`);
    },
  },
  {
    id: 'iframe',
    title: 'read the available balance shown inside the billing page iframe',
    async service(a, c) {
      // find.byText searches the frames too, as browser_find does: the lines around the balance.
      const [, found] = await a.act([
        goto(c.url('/tasks/billing')),
        { method: 'find.byText', params: { text: 'Available balance' } },
      ]);
      return readValue(matchText(found), /Available balance:[\s\S]*?strong[^:\n]*: ([^\n]+)/, 'the balance');
    },
    async peer(a, c) {
      await a.tool('browser_navigate', { url: c.url('/tasks/billing') });
      const found = await a.tool('browser_find', { text: 'Available balance' });
      return readValue(found, /Available balance:[\s\S]*?strong[^:\n]*: ([^\n]+)/, 'the balance');
    },
    check: (answer) => expectEqual('balance', answer, TASK_BALANCE),
  },
  {
    id: 'new-tab',
    title: 'follow the target=_blank link to the annual report and read the revenue',
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/news')), snap]);
      const ref = refOf(str(seen, 'snapshot'), 'link', 'annual report');
      // A page the session's pages open gets the next id: p2 (docs/behaviour.md, "The pages of a session").
      const read = last(
        await a.act([
          { method: 'page.click', params: { ref } },
          { method: 'pages.select', params: { page_id: 'p2' } },
          { method: 'find.byText', params: { text: 'Revenue' } },
        ]),
      );
      return readValue(matchText(read), /Revenue 2026:[\s\S]*?strong[^:\n]*: ([^\n]+)/, 'the revenue');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/news'));
      await a.tool('browser_click', {
        element: 'Read the annual report',
        target: refOf(s, 'link', 'annual report'),
      });
      await a.tool('browser_tabs', { action: 'select', index: 1 });
      const read = await a.tool('browser_find', { text: 'Revenue' });
      return readValue(read, /Revenue 2026:[\s\S]*?strong[^:\n]*: ([^\n]+)/, 'the revenue');
    },
    check: (answer) => expectEqual('revenue', answer, TASK_REVENUE),
  },
  {
    id: 'paging',
    title: `page through the orders table to find order ${ORDER} and read its status`,
    async service(a, c) {
      // One act: page.click until clicks Next (a role selector holds on every page, a ref does not)
      // until the order is shown, then the find reads its row.
      const [, paged, found] = await a.act([
        goto(c.url('/tasks/orders')),
        {
          method: 'page.click',
          params: { selector: 'role=link[name="Next"]', until: { text: ORDER }, maxClicks: TASK_ORDER_PAGES },
        },
        { method: 'find.byText', params: { text: ORDER } },
      ]);
      if (paged === undefined) throw new Error('the agent did not page through the orders');
      // The match is the order's cell; its context names the row: read the row's text.
      const row = readValue(matchText(found), /- row \[ref=(\w+)\]/, 'the row');
      const read = await a.call('page.text', { ref: row });
      return readValue(str(read, 'text'), STATUS_RE, 'the status');
    },
    async peer(a, c) {
      // browser_find takes a regex: the order's row, or else the Next link to go on with.
      const look = { regex: `${ORDER}|Next` };
      await a.tool('browser_navigate', { url: c.url('/tasks/orders') });
      let s = await a.tool('browser_find', look);
      for (let page = 1; page < TASK_ORDER_PAGES && !s.includes(`cell "${ORDER}"`); page++) {
        await a.tool('browser_click', { element: 'Next', target: refOf(s, 'link', 'Next') });
        s = await a.tool('browser_find', look);
      }
      return readValue(s, new RegExp(`cell "${ORDER}".*\\n.*\\n.*\\n\\s*- cell "([^"]+)"`), 'the row');
    },
    check: (answer) => expectEqual('status', answer, ORDER_STATUS),
  },
  {
    id: 'slow-xhr',
    title: 'generate the sales summary and wait for its slow XHR result',
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/summary')), snap]);
      const ref = refOf(str(seen, 'snapshot'), 'button', 'Generate summary');
      const found = last(
        await a.act([
          { method: 'page.click', params: { ref } },
          { expect: { text: 'Summary ready', timeout: 15000 } },
          { method: 'find.byText', params: { text: 'Summary ready' } },
        ]),
      );
      return readValue(matchText(found), /Summary ready: ([^"\n]+)/, 'the summary');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/summary'));
      await a.tool('browser_click', {
        element: 'Generate summary',
        target: refOf(s, 'button', 'Generate summary'),
      });
      await a.tool('browser_wait_for', { text: 'Summary ready' });
      const read = await a.tool('browser_find', { text: 'Summary ready' });
      return readValue(read, /Summary ready: ([^"\n]+)/, 'the summary');
    },
    check: (answer, c) =>
      c.state().summaries === 1
        ? expectEqual('summary', answer, TASK_SUMMARY)
        : `${c.state().summaries} summaries asked`,
  },
  {
    id: 'login',
    title: 'sign in, then open /tasks/profile (it needs the session) and read "member since"',
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/login')), snap]);
      const s = str(seen, 'snapshot');
      const read = last(
        await a.act([
          {
            method: 'page.fill',
            params: { ref: refOf(s, 'textbox', 'Username'), value: TASK_USER.username },
          },
          {
            method: 'page.fill',
            params: { ref: refOf(s, 'textbox', 'Password'), value: TASK_USER.password },
          },
          { method: 'page.click', params: { ref: refOf(s, 'button', 'Sign in') } },
          goto(c.url('/tasks/profile').replace(/\?run=.*/, '')),
          text({ selector: 'main' }),
        ]),
      );
      return readValue(str(read, 'text'), /Member since\s*(\d+)/, 'member since');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/login'));
      await a.tool('browser_fill_form', {
        fields: [
          field(s, 'textbox', 'Username', TASK_USER.username),
          field(s, 'textbox', 'Password', TASK_USER.password),
        ],
      });
      await a.tool('browser_click', { element: 'Sign in', target: refOf(s, 'button', 'Sign in') });
      await a.tool('browser_navigate', { url: c.url('/tasks/profile').replace(/\?run=.*/, '') });
      const p = await a.tool('browser_find', { text: 'Member since' });
      return readValue(p, /Member since[\s\S]*?definition[^:\n]*: "?(\d+)/, 'member since');
    },
    check(answer, c) {
      const st = c.state();
      if (st.loggedIn !== TASK_USER.username || st.profileViews < 1)
        return `logged in: ${String(st.loggedIn)}, profile served ${st.profileViews} times`;
      return expectEqual('member since', answer, TASK_USER.since);
    },
  },
  {
    id: 'validation',
    title: 'register; the server refuses the password: read why, fix it, submit again',
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/register')), snap]);
      const s = str(seen, 'snapshot');
      const [, , , , page, again] = await a.act([
        { method: 'page.fill', params: { ref: refOf(s, 'textbox', 'Username'), value: NEWCOMER.username } },
        { method: 'page.fill', params: { ref: refOf(s, 'textbox', 'Email'), value: NEWCOMER.email } },
        { method: 'page.fill', params: { ref: refOf(s, 'textbox', 'Password'), value: NEWCOMER.password } },
        { method: 'page.click', params: { ref: refOf(s, 'button', 'Create account') } },
        text({ selector: 'main' }),
        snap,
      ]);
      const error = readValue(str(page, 'text'), /(Password must[^\n]*)/, 'the error');
      const r = str(again, 'snapshot');
      const password = fixPassword(error, NEWCOMER.password);
      const done = last(
        await a.act([
          { method: 'page.fill', params: { ref: refOf(r, 'textbox', 'Password'), value: password } },
          { method: 'page.click', params: { ref: refOf(r, 'button', 'Create account') } },
          text({ selector: 'main' }),
        ]),
      );
      return readValue(str(done, 'text'), /(Welcome, \w+!)/, 'the welcome');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/register'));
      await a.tool('browser_fill_form', {
        fields: [
          field(s, 'textbox', 'Username', NEWCOMER.username),
          field(s, 'textbox', 'Email', NEWCOMER.email),
          field(s, 'textbox', 'Password', NEWCOMER.password),
        ],
      });
      await a.tool('browser_click', {
        element: 'Create account',
        target: refOf(s, 'button', 'Create account'),
      });
      const r = await see(a);
      const error = readValue(r, /(Password must[^\n"]*)/, 'the error');
      await a.tool('browser_type', {
        element: 'Password',
        target: refOf(r, 'textbox', 'Password'),
        text: fixPassword(error, NEWCOMER.password),
        submit: true,
      });
      const done = await a.tool('browser_find', { text: 'Welcome' });
      return readValue(done, /(Welcome, \w+!)/, 'the welcome');
    },
    check(answer, c) {
      const st = c.state();
      if (st.registered?.username !== NEWCOMER.username || st.registerAttempts !== 2)
        return `registered ${JSON.stringify(st.registered)} after ${st.registerAttempts} attempts`;
      return expectEqual('welcome', answer, `Welcome, ${NEWCOMER.username}!`);
    },
  },
  {
    id: 'download',
    title: 'download the October report and read its size',
    async service(a, c) {
      const [, seen] = await a.act([goto(c.url('/tasks/reports')), snap]);
      const ref = refOf(str(seen, 'snapshot'), 'link', 'October report');
      // The click's report names the download it started, once saved, with its size.
      const clicked = await a.call('page.click', { ref });
      const saved = clicked.downloads ?? (await a.call('downloads.list')).downloads;
      return readValue(JSON.stringify(saved), /"bytes":(\d+)/, 'the size');
    },
    async peer(a, c) {
      const s = await see(a, c.url('/tasks/reports'));
      // browser_click downloads the file into the server's output directory and names it, without its
      // size, and no other tool reads a file: only browser_run_code_unsafe (Playwright code run in the
      // server, RCE-equivalent) gets the download and counts its bytes.
      const name = readValue(s, /link "([^"]*October report[^"]*)"/, 'the link');
      const ran = await a.tool('browser_run_code_unsafe', {
        code: `async (page) => { const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: ${JSON.stringify(name)} }).click()]); let n = 0; for await (const chunk of await d.createReadStream()) n += chunk.length; return n; }`,
      });
      return readValue(ran, /### Result\s+(\d+)/, 'the size');
    },
    check: (answer, c) =>
      c.state().downloads === 1
        ? expectEqual('size', answer, String(TASK_REPORT_BYTES))
        : `${c.state().downloads} downloads`,
  },
];

/** The tasks the smoke run does (one read, one form with a dialog). */
export const SMOKE_TASKS = ['search', 'confirm-delete'];
