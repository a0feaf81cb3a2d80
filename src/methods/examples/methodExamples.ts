// methods/examples/: the examples of the method table, published in openrpc.json and run by the examples test.
import type { MethodExamples } from '../../rpc/openrpc.js';
import { artifactsExamples } from './examplesArtifacts.js';
import { evaluationExamples } from './examplesEvaluations.js';
import { eventExamples } from './examplesEvents.js';
import { interactExamples } from './examplesInteract.js';
import { networkExamples } from './examplesNetwork.js';
import { pageExamples } from './examplesPage.js';
import { serviceExamples } from './examplesService.js';
import { stateExamples } from './examplesState.js';

/**
 * Every method's examples, by method name, published in openrpc.json (the `examples` of each
 * method). test/unit/methodExamples.test.ts checks that every method has one and that each
 * validates against its schemas; test/integration/openrpcExamples.test.ts runs a set of them.
 */
export const methodExamples: MethodExamples = {
  ...serviceExamples,
  ...stateExamples,
  ...pageExamples,
  ...interactExamples,
  ...artifactsExamples,
  ...networkExamples,
  ...eventExamples,
  ...evaluationExamples,
};
