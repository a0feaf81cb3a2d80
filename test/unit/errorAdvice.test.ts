import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_DESCRIPTIONS } from '../../src/errors/catalogue.js';
import { allMethods } from '../../src/methods/index.js';

// An error's advice ("call dialog.handle", "look with page.snapshot") is what an agent does next: a
// method it names must exist. Every string the service's code writes (error messages, descriptions,
// notes) is read with TypeScript's scanner, and every `namespace.name` in it whose namespace is one
// of the method table's must be a method of the table, and `method {param …}` a param it takes.

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const methodNames = new Set(allMethods.map((m) => m.name));
const namespaces = new Set(allMethods.map((m) => m.name.split('.')[0] ?? ''));

/** Names that look like a method but are something else a message may name. */
const NOT_METHODS = new Set([
  // The notification session.subscribe pushes: a message of the service, not a method to call.
  'session.event',
  // Playwright's trace viewer and a trace's file name, in trace.stop's description.
  'trace.playwright',
  'trace.zip',
  // The entries of the trace zip replay.trace writes.
  'trace.trace',
  'trace.network',
  // The page's own clock (window.performance), in the init script that captures it before the page runs.
  'performance.now',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The text of every string and template literal of a file (comments and code left out). */
function stringsOf(file: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard);
  scanner.setText(readFileSync(file, 'utf8'));
  const out: string[] = [];
  // What each open brace is: a block's (or an object's), or a template's `${`, whose `}` goes on with
  // the template's text.
  const braces: ('block' | 'template')[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.OpenBraceToken) braces.push('block');
    else if (token === ts.SyntaxKind.CloseBraceToken && braces.pop() === 'template')
      token = scanner.reScanTemplateToken(false);
    if (token === ts.SyntaxKind.TemplateHead || token === ts.SyntaxKind.TemplateMiddle)
      braces.push('template');
    if (
      token === ts.SyntaxKind.StringLiteral ||
      token === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
      token === ts.SyntaxKind.TemplateHead ||
      token === ts.SyntaxKind.TemplateMiddle ||
      token === ts.SyntaxKind.TemplateTail
    )
      out.push(scanner.getTokenValue());
  }
  return out;
}

/** `namespace.name` mentions in a text whose namespace is the table's and that are not methods. */
function unknownMethods(text: string): string[] {
  const found: string[] = [];
  for (const [mention, namespace] of text.matchAll(/(?<![\w.$/-])([a-z]+)\.[a-z][A-Za-z]*(?![\w(])/g)) {
    if (namespace === undefined || !namespaces.has(namespace)) continue;
    if (!methodNames.has(mention) && !NOT_METHODS.has(mention)) found.push(mention);
  }
  return found;
}

/** `method {param …}` mentions whose method exists but does not take that param. */
function unknownParams(text: string): string[] {
  const found: string[] = [];
  for (const [mention, method, param] of text.matchAll(/\b([a-z]+\.[a-zA-Z]+) \{"?([a-z_A-Z]+)"?[:,} ]/g)) {
    const def = allMethods.find((m) => m.name === method);
    if (def === undefined || param === undefined) continue;
    if (!(param in def.params.properties)) found.push(mention);
  }
  return found;
}

describe('the methods an error or description names', () => {
  it('finds the table and its namespaces', () => {
    expect(methodNames.has('page.snapshot')).toBe(true);
    expect(namespaces.has('find')).toBe(true);
  });

  it('sees a method that does not exist (the check can fail)', () => {
    expect(unknownMethods('Look with page.snapshot or page.find.')).toEqual(['page.find']);
    expect(unknownMethods('call pages.select {page_id} first')).toEqual([]);
    expect(unknownParams('call page.select {page_id: "p2"} first')).toEqual(['page.select {page_id:']);
    expect(unknownParams('call pages.select {page_id: "p2"} first')).toEqual([]);
    expect(unknownMethods('see https://example.invalid/page.find and page.url()')).toEqual([]);
  });

  it('the catalogue names only methods that exist', () => {
    const wrong = Object.entries(ERROR_DESCRIPTIONS).flatMap(([name, text]) =>
      [...unknownMethods(text), ...unknownParams(text)].map((m) => `${name}: ${m}`),
    );
    expect(wrong).toEqual([]);
  });

  it('every string of src/ names only methods that exist', () => {
    const wrong = sourceFiles(join(repo, 'src')).flatMap((file) =>
      stringsOf(file).flatMap((text) =>
        [...unknownMethods(text), ...unknownParams(text)].map((m) => `${relative(repo, file)}: ${m}`),
      ),
    );
    expect(wrong).toEqual([]);
  });
});
