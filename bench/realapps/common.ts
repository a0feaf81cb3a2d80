// What the real-app tasks share: the context each run gets (the apps, reset to their seeds), and the
// page.act steps the service's scripts batch.
import type { SuiteTask } from '../lib/taskSuite.js';
import type { Step } from '../tasks/agents.js';
import type { AppName } from './install.js';
import type { DocsSite, NodeRedApp, WikiApp } from './servers.js';

/** The apps a run may use; the suite starts only those its tasks need (reading another throws). */
export interface RealAppContext {
  nodeRed(): NodeRedApp;
  wiki(): WikiApp;
  docs(): DocsSite;
}

/** A real-app task: which app it runs on (reset before each run), scripted for both systems. */
export type RealAppTask = SuiteTask<RealAppContext> & { app: AppName };

/** page.goto, by default waiting for the network to be quiet (an app that loads its data by XHR). */
export const goto = (url: string, waitUntil: 'load' | 'networkidle' = 'networkidle'): Step => ({
  method: 'page.goto',
  params: { url, waitUntil },
});
/** The interactive view of the page (or of the element `selector` names). */
export const interactive = (params: Record<string, unknown> = {}): Step => ({
  method: 'page.snapshot',
  params: { interactive: true, ...params },
});
export const findText = (text: string): Step => ({ method: 'find.byText', params: { text } });
export const findRegex = (regex: string): Step => ({ method: 'find.byText', params: { regex } });
export const findRole = (role: string, name?: string): Step => ({
  method: 'find.byRole',
  params: { role, ...(name !== undefined ? { name } : {}) },
});
export const click = (ref: string): Step => ({ method: 'page.click', params: { ref } });
export const dblclick = (ref: string): Step => ({ method: 'page.dblclick', params: { ref } });
export const fill = (ref: string, value: string): Step => ({ method: 'page.fill', params: { ref, value } });
export const expectText = (text: string, timeout?: number): Step => ({
  expect: { text, ...(timeout !== undefined ? { timeout } : {}) },
});

/** "what the check expected" against "what it got", or null when they are equal. */
export const expectEqual = (what: string, got: unknown, want: unknown): string | null =>
  JSON.stringify(got) === JSON.stringify(want)
    ? null
    : `${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
