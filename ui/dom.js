// @ts-check
// A few DOM helpers: elements are built with properties and text nodes only (never innerHTML), so
// nothing the service or a page sends can become markup.

/**
 * An element with attributes and children (strings become text nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean | undefined>} [attrs]
 * @param {(Node | string | null | undefined | false)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'text') el.textContent = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/**
 * The element with that id, of that type; throws when the page has none (a broken page, not a state).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`#${id} is missing or not a ${type.name}`);
  return el;
}

/** @param {Element} el @param {(Node | string)[]} children */
export function replace(el, children) {
  el.replaceChildren(...children);
}

/** A short, readable message of anything thrown. @param {unknown} error */
export function messageOf(error) {
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'number' ? ` (${error.code})` : '';
    return `${error.message}${code}`;
  }
  return String(error);
}

/** Pretty JSON for a <pre>. @param {unknown} value */
export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

/** JSON.parse typed as unknown: the caller says (and owns) what it expects. @param {string} text @returns {unknown} */
export function parseJson(text) {
  return JSON.parse(text);
}
