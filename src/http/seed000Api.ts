import type { Response, Router } from 'express';
import type { CallContext, RpcDispatcher } from '../rpc/dispatch.js';
import { isObject, refusal, restRouter, type RestOptions } from './restCommon.js';

/**
 * The client id of the CDP_URL browser in seed 000's REST endpoints. Seed 000's clients are
 * DevTools clients that own tabs; here tabs belong to the one browser at CDP_URL (tabs.*), and
 * evaluation agents (agents.*) own none, so the browser is a client of its own under this id and
 * its tabs are `cdp:<tabId>`.
 */
export const CDP_CLIENT_ID = 'cdp';

/** The routes of seed 000's REST endpoints, for the 404 answer's route list. */
export const SEED000_ROUTES = [
  'GET /clients',
  'GET /clients/{clientId}/tabs',
  'POST /tabs/open',
  'POST /tabs/close',
  'POST /page/content',
  'POST /page/screenshot',
];

interface Tab {
  tabId: string;
  url: string;
  title: string;
  session_id: string | null;
  attached: boolean;
}

interface Agent {
  clientId: string;
  status: string;
  capabilities: { tools: string[]; toolCount: number; maxConcurrency: number; version: string };
  inFlight: number;
  connectedAt: string;
  remoteAddress: string;
}

/** A seed 000 tab entry of the CDP browser: the seed's fields, plus url, title, session_id and attached. */
function tabEntry(tab: Tab) {
  return {
    tabId: tab.tabId,
    compositeClientId: `${CDP_CLIENT_ID}:${tab.tabId}`,
    connected: true,
    ready: true,
    url: tab.url,
    title: tab.title,
    session_id: tab.session_id,
    attached: tab.attached,
  };
}

/** `baseClientId` or `baseClientId:tabId` → its parts. */
function splitClientId(value: unknown): { base: string; tab: string | undefined } {
  if (typeof value !== 'string' || value.length === 0)
    throw refusal('INVALID_PARAMS', 'clientId must be a non-empty string (GET /clients lists them)');
  const at = value.indexOf(':');
  return at < 0
    ? { base: value, tab: undefined }
    : { base: value.slice(0, at), tab: value.slice(at + 1) || undefined };
}

/**
 * Seed 000's REST endpoints, a projection of agents.*, tabs.* and page.*: every answer comes from
 * dispatcher calls, in the seed's field names. /page/content and /page/screenshot attach the tab
 * (tabs.attach), read it (page.content, page.text or screenshot) and detach again (session.close,
 * which leaves the tab open) unless the tab was attached already, whose session they leave as it is.
 */
export function seed000Router(options: RestOptions & { cdpConfigured: boolean }): Router {
  const { dispatcher } = options;
  const rest = restRouter(options);
  /** A POST route of a tab: its handler gets the JSON object body and the CallContext of its calls. */
  const post = (
    path: string,
    handler: (raw: Record<string, unknown>, ctx: CallContext, res: Response) => Promise<void>,
  ) =>
    rest.post(path, (req, res) => handler(req.body as Record<string, unknown>, rest.context(req, res), res));
  const call = async <T>(method: string, params: Record<string, unknown>, ctx: CallContext) =>
    (await dispatcher.call(method, params, ctx)) as T;
  const listTabs = async (ctx: CallContext) => (await call<{ tabs: Tab[] }>('tabs.list', {}, ctx)).tabs;
  const listAgents = async (ctx: CallContext) =>
    (await call<{ agents: Agent[] }>('agents.list', {}, ctx)).agents;

  /** The tab a body names for the CDP browser (refusing an agent's or an unknown client id). */
  const cdpTab = async (raw: Record<string, unknown>, ctx: CallContext, tabRequired: boolean) => {
    const { base, tab } = splitClientId(raw.clientId);
    if (base !== CDP_CLIENT_ID) await refuseClient(base, ctx);
    const tabId = raw.tabId ?? tab;
    if (tabRequired && (typeof tabId !== 'string' || tabId.length === 0))
      throw refusal('INVALID_PARAMS', 'tabId is missing: give tabId, or clientId as cdp:<tabId>');
    return typeof tabId === 'string' ? tabId : undefined;
  };

  /** An id that is not the CDP browser's: an agent (which owns no tabs here) or nobody. */
  const refuseClient = async (base: string, ctx: CallContext): Promise<never> => {
    if ((await listAgents(ctx)).some((a) => a.clientId === base))
      throw refusal(
        'INVALID_PARAMS',
        `Client ${base} is an evaluation agent: agents here run evaluations (agents.evaluate) and own no tabs. Tabs live in the CDP_URL browser, client id "${CDP_CLIENT_ID}".`,
        { clientId: base, tabsClientId: CDP_CLIENT_ID },
      );
    throw refusal('AGENT_NOT_FOUND', `No client ${base}: GET /clients lists them.`, { clientId: base });
  };

  /**
   * Runs `read` on a session attached to the tab and detaches afterwards if this call attached it.
   * The detach runs even when the client has gone (no signal), so no session is left behind; when
   * `read` failed, its error is the answer and a failed detach is only logged.
   */
  const onTab = async <T>(tabId: string, ctx: CallContext, read: (sessionId: string) => Promise<T>) => {
    const before = (await listTabs(ctx)).find((t) => t.tabId === tabId);
    const { session_id: sessionId } = await call<{ session_id: string }>('tabs.attach', { tabId }, ctx);
    const attachedHere = before?.attached !== true;
    const detach = () => call('session.close', { session_id: sessionId }, { ...ctx, signal: undefined });
    let result: T;
    try {
      result = await read(sessionId);
    } catch (error) {
      if (attachedHere)
        await detach().catch((closeError: unknown) =>
          ctx.log.warn(
            { err: closeError, session_id: sessionId },
            'could not detach a tab after a failed read',
          ),
        );
      throw error;
    }
    if (attachedHere) await detach();
    return result;
  };

  rest.get('/clients', async (req, res) => {
    const ctx = rest.context(req, res);
    const clients: unknown[] = [];
    if (options.cdpConfigured) {
      const tabs = await listTabs(ctx);
      clients.push({
        id: CDP_CLIENT_ID,
        name: 'CDP browser',
        description: 'The Chrome at CDP_URL: its tabs (tabs.*)',
        tabCount: tabs.length,
        tabs: tabs.map(tabEntry),
      });
    }
    for (const agent of await listAgents(ctx))
      clients.push({
        id: agent.clientId,
        name: `Evaluation agent ${agent.capabilities.version}`,
        description: `Tools: ${agent.capabilities.tools.join(', ')}`,
        tabCount: 0,
        tabs: [],
        status: agent.status,
        ready: agent.status !== 'connected',
        connectedAt: agent.connectedAt,
        remoteAddress: agent.remoteAddress,
        capabilities: agent.capabilities,
        inFlight: agent.inFlight,
      });
    res.json(clients);
  });

  rest.get('/clients/:clientId/tabs', async (req, res) => {
    const ctx = rest.context(req, res);
    const { base } = splitClientId(req.params.clientId);
    if (base === CDP_CLIENT_ID) {
      const tabs = (await listTabs(ctx)).map(tabEntry);
      res.json({ clientId: CDP_CLIENT_ID, tabCount: tabs.length, tabs });
      return;
    }
    if (!(await listAgents(ctx)).some((a) => a.clientId === base))
      throw refusal('AGENT_NOT_FOUND', `No client ${base}: GET /clients lists them.`, { clientId: base });
    res.json({ clientId: base, tabCount: 0, tabs: [] });
  });

  post('/tabs/open', async (raw, ctx, res) => {
    await cdpTab(raw, ctx, false);
    const params: Record<string, unknown> = { url: raw.url };
    if (raw.background !== undefined) params.background = raw.background;
    const opened = await call<{ tabId: string; url: string }>('tabs.open', params, ctx);
    res.json({
      clientId: raw.clientId,
      tabId: opened.tabId,
      compositeClientId: `${CDP_CLIENT_ID}:${opened.tabId}`,
      url: opened.url,
      status: 'opened',
    });
  });

  post('/tabs/close', async (raw, ctx, res) => {
    const tabId = await cdpTab(raw, ctx, true);
    await call('tabs.close', { tabId }, ctx);
    res.json({ clientId: raw.clientId, tabId, status: 'closed', success: true });
  });

  post('/page/content', async (raw, ctx, res) => {
    const format = raw.format ?? 'html';
    if (format !== 'html' && format !== 'text')
      throw refusal('INVALID_PARAMS', 'format must be "html" or "text"');
    const tabId = (await cdpTab(raw, ctx, true)) ?? '';
    const { content, truncated } = await onTab(tabId, ctx, async (session_id) => {
      if (format === 'html') {
        const page = await call<{ html: string; truncated: boolean }>('page.content', { session_id }, ctx);
        return { content: page.html, truncated: page.truncated };
      }
      const maxChars = textMaxChars(dispatcher);
      // page.text names truncated only when it cut the text.
      const page = await call<{ text: string; truncated?: true }>(
        'page.text',
        { session_id, ...(maxChars === undefined ? {} : { maxChars }) },
        ctx,
      );
      return { content: page.text, truncated: page.truncated === true };
    });
    res.json({
      clientId: raw.clientId,
      tabId,
      content,
      format,
      length: content.length,
      timestamp: Date.now(),
      truncated,
    });
  });

  post('/page/screenshot', async (raw, ctx, res) => {
    const tabId = (await cdpTab(raw, ctx, true)) ?? '';
    const fullPage = raw.fullPage ?? false;
    const shot = await onTab(tabId, ctx, (session_id) =>
      call<{ base64: string; mime: string }>('screenshot', { session_id, fullPage, mime: 'image/png' }, ctx),
    );
    res.json({
      clientId: raw.clientId,
      tabId,
      imageData: `data:${shot.mime};base64,${shot.base64}`,
      format: 'png',
      fullPage,
      timestamp: Date.now(),
    });
  });

  return rest.done(['/tabs', '/page']);
}

/** page.text's largest maxChars, read from its params schema: /page/content returns the whole text. */
function textMaxChars(dispatcher: RpcDispatcher): number | undefined {
  const def = dispatcher.methods().find((m) => m.name === 'page.text');
  const maxChars: unknown = def?.params.properties.maxChars;
  return isObject(maxChars) && typeof maxChars.maximum === 'number' ? maxChars.maximum : undefined;
}
