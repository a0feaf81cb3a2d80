// @joplin/turndown-plugin-gfm ships no types: the plugins page.text's Markdown uses.
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** Tables (GFM pipes), strikethrough, task list items and highlighted code blocks. */
  export function gfm(service: TurndownService): void;
  export function tables(service: TurndownService): void;
}
