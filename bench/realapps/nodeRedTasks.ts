// node-red 5.0.7 (a flow editor: an SVG canvas, a palette, trays, a menu): four tasks, each scripted
// for the service and for the peer as an agent calls their tools. Each starts on the seed flow (one
// tab "Flow 1", one change node "set greeting"); success is what node-red deployed (GET /flows).
import {
  matchText,
  readValue,
  refOf,
  refOfText,
  str,
  type PeerAgent,
  type ServiceAgent,
  type Step,
} from '../tasks/agents.js';
import {
  click,
  dblclick,
  expectEqual,
  expectText,
  fill,
  findRegex,
  findRole,
  findText,
  goto,
  type RealAppTask,
} from './common.js';
import { NODE_RED_SEED, type FlowNode } from './servers.js';

const SEED_NODE = NODE_RED_SEED.node.name;
const SEED_TAB = NODE_RED_SEED.tab.label;
const DEPLOYED = 'Successfully deployed';
const NEW_TAB_NAME = 'Sensors';
const NEW_NODE_NAME = 'set welcome';
/** The flow the import task pastes: its own tab, one comment node on it. */
const IMPORTED = { tab: 'Imported flow', node: 'imported by the agent' } as const;
const IMPORT_JSON = JSON.stringify([
  { id: 'a1b2c3d4e5f60001', type: 'tab', label: IMPORTED.tab, disabled: false, info: '' },
  {
    id: 'a1b2c3d4e5f60002',
    type: 'comment',
    z: 'a1b2c3d4e5f60001',
    name: IMPORTED.node,
    info: '',
    x: 200,
    y: 120,
    wires: [],
  },
]);

/**
 * The editor loads its flows by XHR after the page (and polls a catalogue outside the allow-list):
 * the agent loads the page and waits until the seed node shows.
 */
const openEditor = (url: string): Step[] => [goto(url, 'load'), expectText(SEED_NODE)];
/** The Deploy button, then its toast: the agent deploys and sees that it worked. */
const deploy = (ref: string): Step[] => [click(ref), expectText(DEPLOYED)];
/** The peer's deploy: the click, then a wait for the toast (its click's answer holds no page text). */
async function peerDeploy(a: PeerAgent, found: string): Promise<void> {
  await a.tool('browser_click', {
    element: 'Deploy',
    target: refOf(found, 'link', 'Deploy', { exact: true }),
  });
  await a.tool('browser_wait_for', { text: DEPLOYED });
}
/** The peer opens the editor and waits for the seed node, as the service's expect does. */
async function peerOpen(a: PeerAgent, url: string): Promise<void> {
  await a.tool('browser_navigate', { url });
  await a.tool('browser_wait_for', { text: SEED_NODE });
}

/** The service renames in the edit tray `open` opens: finds its Name and Done, fills, closes, deploys. */
async function serviceRename(a: ServiceAgent, open: Step, name: string, deployRef: string): Promise<string> {
  const [, field, done] = await a.act([open, findRole('textbox', 'Name'), findRole('button', 'Done')]);
  await a.act([
    fill(refOf(matchText(field), 'textbox', 'Name'), name),
    click(refOf(matchText(done), 'button', 'Done', { exact: true })),
    ...deploy(deployRef),
  ]);
  return 'deployed';
}

/** The peer renames in the open edit tray: finds its Name and Done, types, closes, deploys. */
async function peerRename(a: PeerAgent, name: string, found: string): Promise<string> {
  const tray = await a.tool('browser_find', { regex: 'textbox ".*Name"|button "Done"' });
  await a.tool('browser_type', { element: 'Name', target: refOf(tray, 'textbox', 'Name'), text: name });
  await a.tool('browser_click', { element: 'Done', target: refOf(tray, 'button', 'Done', { exact: true }) });
  await peerDeploy(a, found);
  return 'deployed';
}

/**
 * The peer's way to wait for a button to be enabled: find it, and while its line says [disabled],
 * wait half a second and find it again (at most PEER_RETRIES times); answers the last find.
 */
async function peerUntilEnabled(a: PeerAgent, regex: string): Promise<string> {
  let found = await a.tool('browser_find', { regex });
  for (let i = 0; i < PEER_RETRIES && /\[disabled\]/.test(found); i++) {
    await a.tool('browser_wait_for', { time: 0.5 });
    found = await a.tool('browser_find', { regex });
  }
  return found;
}
const PEER_RETRIES = 6;

/** The seed change node and tab as deployed, and what else is on the seed tab. */
async function deployed(
  flows: Promise<FlowNode[]>,
): Promise<{ nodes: FlowNode[]; seed: FlowNode | undefined }> {
  const nodes = await flows;
  return { nodes, seed: nodes.find((n) => n.id === NODE_RED_SEED.node.id) };
}

export const NODE_RED_TASKS: RealAppTask[] = [
  {
    id: 'nr-add-inject',
    app: 'node-red',
    title: 'node-red: drag an inject node from the palette onto the canvas and deploy',
    async service(a, c) {
      const [, , found] = await a.act([
        ...openEditor(c.nodeRed().url),
        findRegex(`^(inject|${SEED_NODE}|Deploy)$`),
      ]);
      const seen = matchText(found);
      // The canvas is the SVG (img) the seed node is drawn in.
      const canvas = readValue(seen, /img \[ref=([^\]]+)\]/, 'the canvas');
      await a.act([
        { method: 'page.drag', params: { ref: refOfText(seen, 'generic', 'inject'), targetRef: canvas } },
        ...deploy(refOf(seen, 'link', 'Deploy', { exact: true })),
      ]);
      return 'deployed';
    },
    async peer(a, c) {
      await peerOpen(a, c.nodeRed().url);
      const found = await a.tool('browser_find', { regex: `: inject$|: ${SEED_NODE}$|link "Deploy"` });
      await a.tool('browser_drag', {
        startElement: 'inject in the palette',
        startTarget: refOfText(found, 'generic', 'inject'),
        endElement: 'the flow canvas',
        endTarget: readValue(found, /img \[ref=([^\]]+)\]/, 'the canvas'),
      });
      await peerDeploy(a, found);
      return 'deployed';
    },
    async check(_answer, c) {
      const { nodes, seed } = await deployed(c.nodeRed().flows());
      const injects = nodes.filter((n) => n.type === 'inject' && n.z === NODE_RED_SEED.tab.id);
      if (seed === undefined) return 'the seed node is gone';
      return expectEqual('inject nodes on the tab', injects.length, 1);
    },
  },
  {
    id: 'nr-rename-tab',
    app: 'node-red',
    title: `node-red: rename the flow tab "${SEED_TAB}" to "${NEW_TAB_NAME}" (double-click the tab, its edit tray) and deploy`,
    async service(a, c) {
      const [, , found] = await a.act([...openEditor(c.nodeRed().url), findRegex(`^(${SEED_TAB}|Deploy)$`)]);
      const seen = matchText(found);
      return serviceRename(
        a,
        dblclick(refOf(seen, 'link', SEED_TAB, { exact: true })),
        NEW_TAB_NAME,
        refOf(seen, 'link', 'Deploy', { exact: true }),
      );
    },
    async peer(a, c) {
      await peerOpen(a, c.nodeRed().url);
      const found = await a.tool('browser_find', { regex: `link "${SEED_TAB}"|link "Deploy"` });
      await a.tool('browser_click', {
        element: `the ${SEED_TAB} tab`,
        target: refOf(found, 'link', SEED_TAB, { exact: true }),
        doubleClick: true,
      });
      return peerRename(a, NEW_TAB_NAME, found);
    },
    async check(_answer, c) {
      const tab = (await c.nodeRed().flows()).find((n) => n.id === NODE_RED_SEED.tab.id);
      return expectEqual('tab label', tab?.label, NEW_TAB_NAME);
    },
  },
  {
    id: 'nr-edit-node',
    app: 'node-red',
    title: `node-red: open the node "${SEED_NODE}" by double click (its entry in the Explorer) and rename it "${NEW_NODE_NAME}", deploy`,
    async service(a, c) {
      const [, , found] = await a.act([...openEditor(c.nodeRed().url), findRegex(`^(${SEED_TAB}|Deploy)$`)]);
      const seen = matchText(found);
      // The node's label on the canvas names the whole SVG layer (its ref's box is the canvas): the
      // agent double-clicks the node's row in the Explorer, which opens the same edit tray.
      const [, entry] = await a.act([click(refOfText(seen, 'generic', SEED_TAB)), findText(SEED_NODE)]);
      return serviceRename(
        a,
        dblclick(refOfText(matchText(entry), 'generic', SEED_NODE)),
        NEW_NODE_NAME,
        refOf(seen, 'link', 'Deploy', { exact: true }),
      );
    },
    async peer(a, c) {
      await peerOpen(a, c.nodeRed().url);
      const found = await a.tool('browser_find', { regex: `: ${SEED_TAB}$|link "Deploy"` });
      await a.tool('browser_click', {
        element: `${SEED_TAB} in the Explorer`,
        target: refOfText(found, 'generic', SEED_TAB),
      });
      const entry = await a.tool('browser_find', { regex: `: ${SEED_NODE}$` });
      await a.tool('browser_click', {
        element: `${SEED_NODE} in the Explorer`,
        target: refOfText(entry, 'generic', SEED_NODE),
        doubleClick: true,
      });
      return peerRename(a, NEW_NODE_NAME, found);
    },
    async check(_answer, c) {
      const { seed } = await deployed(c.nodeRed().flows());
      return expectEqual('node name', seed?.name, NEW_NODE_NAME);
    },
  },
  {
    id: 'nr-import',
    app: 'node-red',
    title: `node-red: import a flow (a tab "${IMPORTED.tab}" with a comment node) through Menu → Import, and deploy`,
    async service(a, c) {
      const [, , found] = await a.act([...openEditor(c.nodeRed().url), findRegex('^(Main menu|Deploy)$')]);
      const seen = matchText(found);
      const [, item] = await a.act([click(refOf(seen, 'link', 'Main menu')), findRole('link', 'Import')]);
      const [, dialog] = await a.act([
        click(refOf(matchText(item), 'link', 'Import')),
        { method: 'page.snapshot', params: { interactive: true, since: Number(item?.revision) } },
      ]);
      const view = str(dialog, 'snapshot');
      const text = readValue(
        view,
        /dialog "Import nodes"[\s\S]*?textbox[^\n]*?\[ref=([^\]]+)\]/,
        'the JSON field',
      );
      // node-red validates the pasted JSON on keyup (on a timer) before it enables Import: the agent
      // presses a key after the fill; the press's settle waits for that timer.
      const importButton = 'role=button[name="Import" i]';
      await a.act([
        fill(text, IMPORT_JSON),
        { method: 'page.press', params: { ref: text, key: 'End' } },
        { method: 'page.click', params: { selector: importButton } },
        ...deploy(refOf(seen, 'link', 'Deploy', { exact: true })),
      ]);
      return 'deployed';
    },
    async peer(a, c) {
      await peerOpen(a, c.nodeRed().url);
      const found = await a.tool('browser_find', { regex: 'link "Main menu"|link "Deploy"' });
      await a.tool('browser_click', { element: 'Main menu', target: refOf(found, 'link', 'Main menu') });
      const item = await a.tool('browser_find', { regex: 'link "Import' });
      await a.tool('browser_click', { element: 'Import', target: refOf(item, 'link', 'Import') });
      // The find shows the dialog, not its fields: the agent reads the dialog's own snapshot.
      const found2 = await a.tool('browser_find', { text: 'Import nodes' });
      const dialog = await a.tool('browser_snapshot', {
        target: readValue(found2, /dialog "Import nodes" \[ref=([^\]]+)\]/, 'the dialog'),
      });
      const text = readValue(dialog, /textbox[^\n]*?\[ref=([^\]]+)\]/, 'the JSON field');
      await a.tool('browser_type', { element: 'flow JSON', target: text, text: IMPORT_JSON });
      await a.tool('browser_press_key', { key: 'End' });
      const button = await peerUntilEnabled(a, 'button "Import"');
      await a.tool('browser_click', {
        element: 'Import',
        target: refOf(button, 'button', 'Import', { exact: true }),
      });
      await peerDeploy(a, found);
      return 'deployed';
    },
    async check(_answer, c) {
      const nodes = await c.nodeRed().flows();
      const tab = nodes.find((n) => n.type === 'tab' && n.label === IMPORTED.tab);
      if (tab === undefined) return `no tab "${IMPORTED.tab}" deployed`;
      const comment = nodes.find((n) => n.type === 'comment' && n.name === IMPORTED.node);
      return expectEqual('the comment node is on the imported tab', comment?.z, tab.id);
    },
  },
];
