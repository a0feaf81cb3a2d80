// The service's entry point for supervisors: `node dist/src/main.js`. It does not stop when its
// parent exits (see ServeOptions); `npm start` and `playwright-jsonrpc serve` go through src/cli/.
import { serve } from './cli/serve.js';

await serve({ exitWithParent: false });
