// The method table: every namespace's methods (page/, network/, session/ and the service's own here), in the docs' order.
import type { ServiceMethod } from './defineSessionMethod.js';
import { agentMethods } from './agents.js';
import { axeMethods } from './page/axe.js';
import { dialogMethods } from './session/dialog.js';
import { findMethods } from './page/find.js';
import { logsMethods } from './network/logs.js';
import { networkMethods } from './network/network.js';
import { networkDetailMethods } from './network/networkDetail.js';
import { networkConditionMethods } from './network/networkConditions.js';
import { networkRouteMethods } from './network/networkRoutes.js';
import { pageMethods } from './page/page.js';
import { pageActionMethods } from './page/pageActions.js';
import { pageActMethods } from './page/pageAct.js';
import { pageInputMethods } from './page/pageInput.js';
import { pageUploadMethods } from './page/pageUpload.js';
import { downloadsMethods } from './session/downloads.js';
import { artifactsMethods } from './session/artifacts.js';
import { performanceMethods } from './session/performance.js';
import { pageSnapshotMethods } from './page/pageSnapshot.js';
import { pagesMethods } from './session/pages.js';
import { rpcDiscover } from './rpc.js';
import { screenshotMethods } from './page/screenshot.js';
import { sessionMethods } from './session/session.js';
import { sessionExportMethods } from './session/sessionExport.js';
import { replayMethods } from './session/replay.js';
import { storageMethods } from './session/storage.js';
import { sessionStorageMethods } from './session/sessionStorage.js';
import { subscriptionMethods } from './session/sessionSubscribe.js';
import { tabMethods } from './tabs.js';

/** Every method of the service, in the order the docs list them. */
export const allMethods: ServiceMethod[] = [
  ...sessionMethods,
  ...sessionExportMethods,
  ...replayMethods,
  ...storageMethods,
  ...sessionStorageMethods,
  ...pageMethods,
  ...pageActionMethods,
  ...pageActMethods,
  ...pageInputMethods,
  ...pageUploadMethods,
  ...pageSnapshotMethods,
  ...pagesMethods,
  ...dialogMethods,
  ...logsMethods,
  ...networkMethods,
  ...networkDetailMethods,
  ...networkRouteMethods,
  ...networkConditionMethods,
  ...screenshotMethods,
  ...downloadsMethods,
  ...artifactsMethods,
  ...performanceMethods,
  ...findMethods,
  ...axeMethods,
  ...agentMethods,
  ...tabMethods,
  ...subscriptionMethods,
  rpcDiscover,
];
