// The parts of the MCP menu that need no service: the groups cover the table once, the core menu's
// short texts match real params and leave no object param unexplained, every tool has a title, and
// the store of enabled groups stays within its bounds.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allMethods } from '../../src/methods/index.js';
import { IDEMPOTENCY_PARAM } from '../../src/rpc/idempotencyKey.js';
import { PUSH_ONLY, NOT_TOOLS } from '../../src/mcp/toolAvailability.js';
import { TOOL_TITLES } from '../../src/mcp/toolAnnotations.js';
import { ToolCatalog } from '../../src/mcp/toolCatalog.js';
import { groupOf, methodsOf, parseGroups, TOOL_GROUPS } from '../../src/mcp/toolGroups.js';
import {
  MAX_TOOL_MENUS,
  MAX_TOOL_MENUS_PER_KEY,
  TOOL_MENU_IDLE_MS,
  ToolMenus,
} from '../../src/mcp/toolMenus.js';
import { BRIEF_PARAM_TEXTS, SHARED_PARAM_TEXTS } from '../../src/mcp/toolParamTexts.js';
import { toolInputSchema } from '../../src/mcp/toolSchemas.js';

const tools = allMethods.filter((m) => !NOT_TOOLS.has(m.name) && !PUSH_ONLY.has(m.name));
const methods = allMethods.map((m) => m.name);

describe('MCP tool groups', () => {
  it('put every method that can be a tool in exactly one group, and name no other', () => {
    const grouped = TOOL_GROUPS.flatMap((g) => methodsOf(g));
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual(tools.map((m) => m.name).sort());
    for (const m of tools) expect(groupOf(m.name), m.name).toBeDefined();
    // The catalog refuses a table with a method in no group.
    const first = allMethods[0];
    if (first === undefined) throw new Error('an empty method table');
    const stray = { ...first, name: 'page.teleport' };
    expect(() => new ToolCatalog([...allMethods, stray])).toThrow(/page\.teleport is in no MCP tool group/);
  });

  it('are listed in docs/transports.md as they are in toolGroups.ts', () => {
    const doc = readFileSync('docs/transports.md', 'utf8');
    const section = /### The menu: tool groups\n([\s\S]*?)\n### /.exec(doc)?.[1] ?? '';
    for (const group of TOOL_GROUPS) {
      const item = new RegExp(`^- \`${group}\`: ([\\s\\S]*?)(?=\\n- |\\n\\n)`, 'm').exec(section)?.[1];
      expect(item, group).toBeDefined();
      const listed = [...(item ?? '').matchAll(/`([a-z][A-Za-z]*_[A-Za-z]+|screenshot)`/g)].map((m) => m[1]);
      expect(listed, group).toEqual(methodsOf(group).map((m) => m.replace(/\./g, '_')));
    }
  });

  it('parse a list of names, all, and say which names they do not know', () => {
    expect([...parseGroups(['network, storage']).groups].sort()).toEqual(['core', 'network', 'storage']);
    expect([...parseGroups(['all']).groups]).toEqual(TOOL_GROUPS);
    expect(parseGroups(['', 'files,nope']).unknown).toEqual(['nope']);
  });
});

describe('the core menu’s input schemas', () => {
  it('give short texts only to params that exist, naming tools, not methods', () => {
    for (const [method, params] of Object.entries(BRIEF_PARAM_TEXTS)) {
      const def = allMethods.find((m) => m.name === method);
      expect(def, method).toBeDefined();
      expect(groupOf(method), method).toBe('core');
      for (const [param, text] of Object.entries(params)) {
        expect(Object.keys(def?.params.properties ?? {}), `${method}.${param}`).toContain(param);
        // page_act's steps take methods by their dotted names: its text must show one.
        if (method !== 'page.act')
          for (const m of methods) expect(text, `${method}.${param}`).not.toContain(m);
      }
    }
    for (const text of Object.values(SHARED_PARAM_TEXTS))
      for (const m of methods) expect(text).not.toContain(m);
  });

  it('leave out no object param unexplained: its fields are not listed, so its text names them', () => {
    for (const method of methodsOf('core')) {
      const def = allMethods.find((m) => m.name === method);
      if (def === undefined) throw new Error(`${method} is not in the table`);
      const schema = toolInputSchema(def, true);
      for (const [param, shown] of Object.entries(schema.properties ?? {})) {
        const type = (shown as { type?: string }).type;
        expect(type, `${method}.${param} has a type`).toBeDefined();
        if (type === 'object')
          expect((shown as { description?: string }).description, `${method}.${param}`).toMatch(
            /\{.+\}|saved/,
          );
      }
    }
  });

  it('drop what only a validator needs, and idempotency_key, but keep every choice of the full form', () => {
    const click = allMethods.find((m) => m.name === 'page.click');
    if (click === undefined) throw new Error('no page.click');
    const full = toolInputSchema(click, false);
    expect(JSON.stringify(full)).not.toMatch(/maxLength|pattern|additionalProperties|anyOf/);
    // Every method takes the key; no tool lists it.
    expect(Object.keys(click.params.properties)).toContain(IDEMPOTENCY_PARAM);
    expect(Object.keys(full.properties ?? {})).not.toContain(IDEMPOTENCY_PARAM);
    expect(full.properties?.button).toMatchObject({ type: 'string', enum: ['left', 'right', 'middle'] });
    expect(full.properties?.timeout).toMatchObject({ default: 15000 });
    const brief = toolInputSchema(click, true);
    expect(brief.properties?.timeout).toBeUndefined();
    expect(brief.required).toEqual(['session_id']);
  });
});

describe('tool titles', () => {
  it('name every method that can be a tool, for a person', () => {
    for (const m of allMethods.filter((d) => !NOT_TOOLS.has(d.name))) {
      expect(TOOL_TITLES[m.name], m.name).toMatch(/^[A-Z][^.]*$/);
    }
  });
});

describe('ToolMenus', () => {
  it('keeps a client’s groups under its id and key only', () => {
    const menus = new ToolMenus();
    expect(menus.enable('k1', 'm_a', ['network'])).toBe(true);
    expect(menus.enable('k1', 'm_a', ['network'])).toBe(false);
    expect([...menus.enabled('k1', 'm_a')]).toEqual(['network']);
    expect(menus.enabled('k2', 'm_a').size).toBe(0);
    expect(menus.enabled('k1', 'm_b').size).toBe(0);
  });

  it('forgets an idle menu, and holds its bounds per key and in all', () => {
    let now = 0;
    const menus = new ToolMenus(() => now);
    menus.enable('k1', 'm_idle', ['files']);
    now += TOOL_MENU_IDLE_MS + 1;
    expect(menus.enabled('k1', 'm_idle').size).toBe(0);
    expect(menus.size).toBe(0);
    for (let i = 0; i <= MAX_TOOL_MENUS_PER_KEY; i++) menus.enable('busy', `m_${i}`, ['page']);
    expect(menus.size).toBe(MAX_TOOL_MENUS_PER_KEY);
    // The oldest of that key went first.
    expect(menus.enabled('busy', 'm_0').size).toBe(0);
    expect(menus.enabled('busy', `m_${MAX_TOOL_MENUS_PER_KEY}`).size).toBe(1);
    for (let i = 0; i < MAX_TOOL_MENUS; i++) menus.enable(`key${i}`, 'm', ['page']);
    expect(menus.size).toBe(MAX_TOOL_MENUS);
  });
});
