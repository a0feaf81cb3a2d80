// npm run generate: writes openrpc.json, the typed client's method file and the README method list,
// all from the method table. CI runs it and fails on `git diff`, so none of them drifts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CLIENT_METHODS_PATH } from './generateClient.js';
import { renderClient, renderOpenRpc, withMethodList } from './generateDocs.js';

const root = new URL('../', import.meta.url);
writeFileSync(new URL('openrpc.json', root), renderOpenRpc());
writeFileSync(new URL(CLIENT_METHODS_PATH, root), await renderClient());
const readmeUrl = new URL('README.md', root);
if (existsSync(readmeUrl)) {
  writeFileSync(readmeUrl, withMethodList(readFileSync(readmeUrl, 'utf8')));
  process.stdout.write(`generated openrpc.json, ${CLIENT_METHODS_PATH} and the README method list\n`);
} else {
  process.stdout.write(`generated openrpc.json and ${CLIENT_METHODS_PATH}; no README.md to update\n`);
}
