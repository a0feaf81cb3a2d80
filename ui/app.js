// @ts-check
// The console's entry: the top bar's key field (topBar.js) and Connect dialog (connect.js), then the
// panels once the service accepts the key.
import { startAgents, stopAgents } from './agents.js';
import { startConnect } from './connect.js';
import { byId, messageOf } from './dom.js';
import { startEvents, stopEvents } from './events.js';
import { startExports } from './exports.js';
import { startLiveView, stopLiveView } from './liveView.js';
import { startMethods } from './methods.js';
import { startSessions, stopSessions } from './sessions.js';
import { notify, selectSession } from './state.js';
import { startTopBar } from './topBar.js';

startConnect();
void startTopBar({
  show(keyed) {
    byId('console', HTMLElement).hidden = !keyed;
    byId('welcome', HTMLElement).hidden = keyed;
  },
  start() {
    startSessions();
    startLiveView();
    startEvents();
    startExports();
    startAgents();
    startMethods().catch((error) =>
      notify(`Could not read the methods (GET /openrpc.json): ${messageOf(error)}`),
    );
  },
  stop() {
    stopSessions();
    stopLiveView();
    stopEvents();
    stopAgents();
    selectSession(null);
  },
});
