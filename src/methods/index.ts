import type { ServiceMethod } from './defineSessionMethod.js';
import { agentMethods } from './agents.js';
import { axeMethods } from './axe.js';
import { dialogMethods } from './dialog.js';
import { findMethods } from './find.js';
import { logsMethods } from './logs.js';
import { networkMethods } from './network.js';
import { networkDetailMethods } from './networkDetail.js';
import { networkConditionMethods } from './networkConditions.js';
import { networkRouteMethods } from './networkRoutes.js';
import { pageMethods } from './page.js';
import { pageActionMethods } from './pageActions.js';
import { pageActMethods } from './pageAct.js';
import { pageInputMethods } from './pageInput.js';
import { pageUploadMethods } from './pageUpload.js';
import { downloadsMethods } from './downloads.js';
import { artifactsMethods } from './artifacts.js';
import { pageSnapshotMethods } from './pageSnapshot.js';
import { pagesMethods } from './pages.js';
import { rpcDiscover } from './rpc.js';
import { screenshotMethods } from './screenshot.js';
import { sessionMethods } from './session.js';
import { storageMethods } from './storage.js';
import { subscriptionMethods } from './sessionSubscribe.js';
import { tabMethods } from './tabs.js';

/** Every method of the service, in the order the docs list them. */
export const allMethods: ServiceMethod[] = [
  ...sessionMethods,
  ...storageMethods,
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
  ...findMethods,
  ...axeMethods,
  ...agentMethods,
  ...tabMethods,
  ...subscriptionMethods,
  rpcDiscover,
];
