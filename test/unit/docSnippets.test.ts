// The rule that picks which docs blocks run (test/integration/docSnippets.test.ts runs them).
import { describe, expect, it } from 'vitest';
import {
  errorCodesIn,
  hasMcpError,
  outputShows,
  planBlock,
  readFencedBlocks,
  shownOutputs,
} from '../helpers/docSnippets.js';

const fence = '```';

function plans(markdown: string) {
  return readFencedBlocks(markdown).map((block) => ({ line: block.line, plan: planBlock(block) }));
}

describe('docs snippets: which blocks run', () => {
  it('runs every bash block and ts/js programs; never json or fragments', () => {
    const markdown = [
      `${fence}bash`,
      'curl -s $API',
      fence,
      `${fence}sh`,
      'echo hi',
      fence,
      `${fence}ts`,
      "import WebSocket from 'ws';",
      fence,
      `${fence}ts`,
      'export const pageTitle = defineSessionMethod({});',
      fence,
      `${fence}json`,
      '{"a":1}',
      fence,
    ].join('\n');
    expect(plans(markdown).map((p) => p.plan.run)).toEqual([true, true, true, false, false]);
  });

  it('reads blocks nested in a list, without their indentation', () => {
    const [block] = readFencedBlocks(
      ['1. Declare it:', '', `   ${fence}ts`, "   import x from 'y';", `   ${fence}`].join('\n'),
    );
    expect(block).toMatchObject({ line: 3, lang: 'ts', code: "import x from 'y';" });
  });

  it('a not-run marker on the last non-blank line before the block keeps it from running', () => {
    const markdown = [
      '<!-- snippet: not run (needs Docker) -->',
      '',
      `${fence}bash`,
      'docker build .',
      fence,
    ].join('\n');
    expect(plans(markdown)[0]?.plan).toEqual({ run: false, reason: 'needs Docker', marked: true });
  });

  it('a marker applies to the next block only', () => {
    const markdown = [
      '<!-- snippet: not run (needs Docker) -->',
      `${fence}bash`,
      'docker build .',
      fence,
      'Then:',
      `${fence}bash`,
      'curl -s $API',
      fence,
    ].join('\n');
    expect(plans(markdown).map((p) => p.plan.run)).toEqual([false, true]);
  });

  it('an error marker makes the block run and expect that error', () => {
    const markdown = ['<!-- snippet: error -32013 -->', `${fence}bash`, 'curl -s $API', fence].join('\n');
    expect(plans(markdown)[0]?.plan).toEqual({ run: true, lang: 'bash', expectError: -32013 });
  });

  it('refuses a marker it does not know, and a not-run marker without a reason', () => {
    expect(() => plans(['<!-- snippet: skip -->', `${fence}bash`, 'ls', fence].join('\n'))).toThrow(
      /not a marker/,
    );
    expect(() => plans(['<!-- snippet: not run () -->', `${fence}bash`, 'ls', fence].join('\n'))).toThrow(
      /not a marker/,
    );
  });

  it('refuses to run a block that installs, starts the service or runs the suite unless it is marked', () => {
    for (const command of ['npm ci && npm start', 'npm install foo', 'npm test', 'npm run bench']) {
      expect(() => plans([`${fence}bash`, command, fence].join('\n')), command).toThrow(/never runs/);
      const marked = ['<!-- snippet: not run (the quick start) -->', `${fence}bash`, command, fence].join(
        '\n',
      );
      expect(plans(marked)[0]?.plan.run).toBe(false);
    }
  });
});

describe('docs snippets: errors in the output', () => {
  it('finds JSON-RPC error codes, compact, pretty-printed or escaped inside an MCP text part', () => {
    expect(errorCodesIn('{"jsonrpc":"2.0","id":2,"error":{"code":-32010,"message":"m"}}')).toEqual([-32010]);
    expect(errorCodesIn('{\n  "error": {\n    "code": -32001\n  }\n}')).toEqual([-32001]);
    expect(errorCodesIn('"text":"{\\"error\\":{\\"code\\":-32602}}"')).toEqual([-32602]);
  });

  it('does not take an "error" field of a result for a JSON-RPC error', () => {
    expect(
      errorCodesIn('{"result":{"requests":[{"error":"net::ERR_FAILED"}],"console":[{"type":"error"}]}}'),
    ).toEqual([]);
  });

  it('sees an MCP result flagged isError', () => {
    expect(hasMcpError('{"result":{"content":[],"isError":true}}')).toBe(true);
    expect(hasMcpError('{"result":{"content":[]}}')).toBe(false);
  });
});

describe('docs snippets: what a block says it prints', () => {
  it('reads `# =>` lines and their aligned continuations', () => {
    const code = [
      "call '{…}' | jq -r .result.text",
      '# => Projects',
      '#    Apollo',
      '#      was: Ada',
      'echo done',
      '#    not a continuation',
    ].join('\n');
    expect(shownOutputs(code)).toEqual(['Projects', 'Apollo', '  was: Ada']);
  });

  it('matches `…` and `...` within one line only', () => {
    expect(outputShows('{"session_id":"s_12ab"}\n', '{"session_id":"s_…"}')).toBe(true);
    expect(outputShows('s_12ab', 's_...')).toBe(true);
    expect(outputShows('{"a":1,\n"b":2}', '{"a":…"b":2}')).toBe(false);
    expect(outputShows('{"ok":true}', '{"ok":false}')).toBe(false);
  });
});
