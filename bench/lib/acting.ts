// What the acting rows (issue 11) do on the fixture pages, shared by the floor and the service so
// that both make the same calls on the same elements.
import type { ActionKind, FillStep } from '../systems/types.js';

/** The element each element action aims at on /widgets (drag: on /sortable). */
export const ACTION_SELECTORS = {
  hover: '#menu',
  dblclick: '#dbl',
  check: '#news',
  select: '#size',
  type: '#city',
  focus: '#note',
  scroll: '#far',
} as const satisfies Partial<Record<ActionKind, string>>;

/** #size starts at m: every iteration (a fresh load) changes it. */
export const selectValue = (i: number): string => (i % 2 === 0 ? 's' : 'l');
export const TYPE_TEXT = 'Par';
export const KEY = 'Tab';
/** Right of the inline content of /widgets' form: a click that hits no control and no link. */
export const MOUSE_POINT = { x: 1000, y: 300 } as const;
export const DRAG = {
  source: '#list li[data-id=a]',
  target: '#list li[data-id=c]',
  /** The service's default (DEFAULT_DRAG_STEPS): the floor passes it explicitly. */
  steps: 10,
} as const;

/** Which page an action's iteration loads first. */
export const actionPage = (kind: ActionKind): string => (kind === 'drag' ? '/sortable' : '/widgets');

/** The page.act row on /inputs: five text fields, each a new value every call, then the card's click. */
export const actFills = (i: number, tag: string): FillStep[] =>
  ['text', 'email', 'q', 'tel', 'url'].map((name) => ({
    selector: `[name=${name}]`,
    value: `${tag}${i}`,
  }));
export const ACT_CLICK = '.card';
