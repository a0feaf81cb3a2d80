// npm run generate: writes openrpc.json and the README method list from the method table.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderOpenRpc, withMethodList } from './generateDocs.js';

const root = new URL('../', import.meta.url);
writeFileSync(new URL('openrpc.json', root), renderOpenRpc());
const readmeUrl = new URL('README.md', root);
writeFileSync(readmeUrl, withMethodList(readFileSync(readmeUrl, 'utf8')));
process.stdout.write('generated openrpc.json and the README method list\n');
