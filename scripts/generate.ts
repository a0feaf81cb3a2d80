// npm run generate: writes openrpc.json, the typed client's method file and the reference pages
// (docs/methods.md, docs/errors.md, docs/configuration.md), all from the tables in the code. CI runs
// it and fails on `git diff`, and a unit test compares each committed file, so none of them drifts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { CLIENT_METHODS_PATH } from './generateClient.js';
import { renderClient, renderDocPages, renderOpenRpc } from './generateDocs.js';

const root = new URL('../', import.meta.url);
const files: Record<string, string> = {
  'openrpc.json': renderOpenRpc(),
  [CLIENT_METHODS_PATH]: await renderClient(),
  ...(await renderDocPages()),
};
mkdirSync(new URL('docs/', root), { recursive: true });
for (const [path, text] of Object.entries(files)) writeFileSync(new URL(path, root), text);
process.stdout.write(`generated ${Object.keys(files).join(', ')}\n`);
