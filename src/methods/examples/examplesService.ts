// Examples of the session, pages, dialog, logs, screenshot, downloads, find, axe, agents,
// tabs and rpc methods for openrpc.json. Where docs/behaviour.md shows a real exchange the example
// is that exchange (session id and fixture port made the same for every example); the others are
// written in the same shapes.
import type { MethodExample } from '../../rpc/openrpc.js';
import {
  EXAMPLE_DOWNLOAD,
  EXAMPLE_ORIGIN as O,
  EXAMPLE_SESSION as S,
  EXAMPLE_TIME as TIME,
} from './exampleValues.js';

const AGENT = '0b6f3c52-7a1e-4d3b-8f29-5c4e1a7d9b60';
const TAB = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';

export const serviceExamples: Record<string, MethodExample[]> = {
  'session.create': [
    { name: 'a session with the defaults', params: {}, result: { session_id: S } },
    {
      name: 'a session already on a page (docs/behaviour.md)',
      params: { url: `${O}/form` },
      result: { session_id: S, url: `${O}/form`, title: 'Form', status: 200 },
    },
    {
      name: 'a phone-sized viewport that accepts confirm()',
      params: { viewport: { width: 390, height: 844 }, dialogs: { confirm: 'accept' } },
      result: { session_id: S },
    },
    {
      name: 'a phone, in German, in Tokyo, in Paris (docs/behaviour.md)',
      params: {
        device: 'iPhone 13',
        locale: 'de-DE',
        timezoneId: 'Asia/Tokyo',
        geolocation: { latitude: 48.85, longitude: 2.35 },
        permissions: ['geolocation'],
      },
      result: { session_id: S },
    },
  ],
  'session.close': [
    { name: 'close a session', params: { session_id: S }, result: { ok: true, closed: true } },
  ],
  'session.list': [
    {
      name: 'the sessions of this key',
      params: {},
      result: {
        sessions: [
          {
            session_id: S,
            url: `${O}/projects`,
            title: 'Projects',
            createdAt: TIME,
            lastUsedAt: TIME,
            expiresAt: '2026-11-24T04:31:00.609Z',
            pages: 1,
          },
        ],
      },
    },
  ],
  'pages.list': [
    {
      name: 'a page and the popup it opened (docs/behaviour.md)',
      params: { session_id: S },
      result: {
        pages: [
          { page_id: 'p1', url: `${O}/opener`, title: 'Opener', active: true },
          {
            page_id: 'p2',
            url: `${O}/pages-target?from=blank`,
            title: 'Target blank',
            active: false,
            opener: 'p1',
          },
        ],
      },
    },
  ],
  'pages.select': [
    {
      name: 'make the popup the active page (docs/behaviour.md)',
      params: { session_id: S, page_id: 'p2' },
      result: { page_id: 'p2', url: `${O}/pages-target?from=blank`, title: 'Target blank' },
    },
  ],
  'pages.open': [
    {
      name: 'a second page of the session, on a URL (docs/behaviour.md)',
      params: { session_id: S, url: `${O}/form` },
      result: { page_id: 'p2', url: `${O}/form`, title: 'Form', status: 200 },
    },
  ],
  'pages.close': [
    {
      name: 'close the popup (docs/behaviour.md)',
      params: { session_id: S, page_id: 'p2' },
      result: { closed: 'p2', active: 'p1' },
    },
  ],
  'dialog.setPolicy': [
    {
      name: 'answer prompt() with a text (docs/behaviour.md)',
      params: { session_id: S, policy: { prompt: 'accept', promptText: 'Ada' } },
      result: {
        policy: {
          confirm: 'dismiss',
          prompt: 'accept',
          promptText: 'Ada',
          beforeunload: 'accept',
          mode: 'auto',
          pendingTimeoutMs: 30000,
        },
      },
    },
  ],
  'dialog.handle': [
    {
      name: 'accept the pending confirm (docs/behaviour.md)',
      params: { session_id: S, accept: true },
      result: {
        type: 'confirm',
        message: 'Delete gamma?',
        outcome: 'accepted',
        page_id: 'p1',
        stalled: 'finished',
      },
    },
  ],
  'logs.pull': [
    {
      name: 'what the page logged since the last pull',
      params: { session_id: S },
      result: {
        console: [{ seq: 12, type: 'error', text: 'settle: something broke', timestamp: TIME }],
        pageErrors: [],
        dropped: { console: 0, pageErrors: 0 },
      },
    },
    {
      name: 'after a cursor, without draining (another reader still sees them)',
      params: { session_id: S, since: 11 },
      result: {
        console: [{ seq: 12, type: 'error', text: 'settle: something broke', timestamp: TIME }],
        pageErrors: [],
        dropped: { console: 0, pageErrors: 0 },
        cursor: 14,
      },
    },
  ],
  'downloads.list': [
    {
      name: 'a saved download (docs/behaviour.md)',
      params: { session_id: S },
      result: {
        downloads: [EXAMPLE_DOWNLOAD],
      },
    },
  ],
  'downloads.get': [
    {
      name: '16 bytes from offset 10 (docs/behaviour.md)',
      params: { session_id: S, download_id: 'd1', offset: 10, maxBytes: 16 },
      result: {
        base64: 'IHRoZSBmaXh0dXJlOiBhIA==',
        bytes: 16,
        offset: 10,
        size: 43,
        nextOffset: 26,
        name: 'hello.txt',
        mime: 'text/plain',
      },
    },
  ],
  'find.byRole': [
    {
      name: 'buttons named like "action", frames included (docs/behaviour.md)',
      params: { session_id: S, role: 'button', name: 'action' },
      result: {
        selector: 'role=button[name="action"i]',
        count: 3,
        revision: 1,
        matches: [
          { ref: 'e13', role: 'button', name: 'Shadow action', line: 'button "Shadow action" [ref=e13]' },
          {
            ref: 'f1e2',
            role: 'button',
            name: 'Same-origin action',
            line: 'button "Same-origin action" [ref=f1e2]',
          },
          {
            ref: 'f2e3',
            role: 'button',
            name: 'Cross-site action',
            line: 'button "Cross-site action" [ref=f2e3]',
          },
        ],
      },
    },
  ],
  'find.byText': [
    {
      name: 'a text inside a field (docs/behaviour.md)',
      params: { session_id: S, text: 'milk' },
      result: {
        count: 1,
        revision: 2,
        matches: [
          {
            ref: 'e9',
            role: 'text',
            line: 'text: remember the milk',
            context:
              '- textbox "Note" [ref=e9]:\n  - /placeholder: Write a note\n  - text: remember the milk',
          },
        ],
      },
    },
  ],
  'axe.run': [
    {
      name: 'an image without alternative text',
      params: { session_id: S },
      result: {
        violations: [
          {
            id: 'image-alt',
            impact: 'critical',
            description: 'Ensure <img> elements have alternative text or a role of none or presentation',
            help: 'Images must have alternative text',
            helpUrl: 'https://dequeuniversity.com/rules/axe/4.10/image-alt',
            nodes: [{ target: ['img'], html: '<img src="/logo.png">' }],
            nodeCount: 1,
          },
        ],
        passes: 12,
      },
    },
  ],
  'agents.list': [
    {
      name: 'one ready agent',
      params: {},
      result: {
        agents: [
          {
            clientId: AGENT,
            status: 'ready',
            capabilities: { tools: ['summarize'], toolCount: 1, maxConcurrency: 2, version: '1.0.0' },
            inFlight: 0,
            connectedAt: TIME,
            remoteAddress: '127.0.0.1',
            lastStatus: null,
          },
        ],
        total: 1,
        truncated: false,
      },
    },
  ],
  'agents.evaluate': [
    {
      name: 'a tool call routed to a ready agent',
      params: { tool: 'summarize', input: { text: 'A long text.' }, timeout: 30000 },
      result: { status: 'success', output: { summary: 'Short.' }, evaluationId: 'eval-1', clientId: AGENT },
    },
  ],
  'agents.configureLLM': [
    {
      name: "set an agent's models",
      params: { clientId: AGENT, provider: 'openai', apiKey: 'sk-…', models: { main: 'gpt-4.1' } },
      result: { success: true },
    },
  ],
  'tabs.list': [
    {
      name: 'the tabs of the CDP_URL browser',
      params: {},
      result: {
        tabs: [{ tabId: TAB, url: `${O}/projects`, title: 'Projects', session_id: null, attached: false }],
      },
    },
  ],
  'tabs.open': [
    {
      name: 'open a tab',
      params: { url: `${O}/projects` },
      result: { tabId: TAB, url: `${O}/projects`, status: 'opened' },
    },
  ],
  'tabs.close': [
    { name: 'close a tab', params: { tabId: TAB }, result: { ok: true, tabId: TAB, status: 'closed' } },
  ],
  'tabs.attach': [
    {
      name: 'a session on an open tab',
      params: { tabId: TAB },
      result: { session_id: S, tabId: TAB, url: `${O}/projects` },
    },
  ],
  'rpc.discover': [
    {
      name: 'this document (abridged: no methods shown)',
      params: {},
      result: {
        openrpc: '1.2.6',
        info: { title: 'playwright-jsonrpc', version: '0.1.0' },
        methods: [],
        components: {},
      },
    },
  ],
};
