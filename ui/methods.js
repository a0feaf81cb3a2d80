// @ts-check
// The method runner: every method of GET /openrpc.json, a form generated from its params schema,
// and the JSON answer (result or error) of running it on POST /rpc.
import { apiFetch, rpc, RpcError } from './api.js';
import { byId, h, messageOf, pretty, parseJson } from './dom.js';
import { buildForm, readForm } from './schemaForm.js';
import { selectedSession } from './state.js';

/** @typedef {{ name: string, summary?: string, description?: string, params: import('./schemaForm.js').MethodParam[] }} Method */

/** @type {Map<string, Method>} */
const methods = new Map();
/** @type {import('./schemaForm.js').Field[]} */
let fields = [];

function showMethod() {
  const name = byId('method-select', HTMLSelectElement).value;
  const method = methods.get(name);
  byId('method-summary', HTMLParagraphElement).textContent = method?.summary ?? '';
  const session = selectedSession();
  fields = buildForm(
    byId('method-fields', HTMLDivElement),
    method?.params ?? [],
    session === null ? {} : { session_id: session },
  );
  byId('method-result', HTMLPreElement).hidden = true;
  showImage(undefined);
}

/**
 * An image in an answer (screenshot's {base64, mime}): the picture, and the JSON with the base64
 * replaced by its length, which says nothing to a reader.
 * @param {unknown} result
 * @returns {{ src: string, shown: unknown } | undefined}
 */
function imageOf(result) {
  if (typeof result !== 'object' || result === null) return undefined;
  const { base64, mime } = /** @type {{ base64?: unknown, mime?: unknown }} */ (result);
  if (typeof base64 !== 'string' || typeof mime !== 'string' || !/^image\/[a-z+.-]+$/.test(mime))
    return undefined;
  return {
    src: `data:${mime};base64,${base64}`,
    shown: { ...result, base64: `<${base64.length} base64 characters: the image above>` },
  };
}

/** @param {string | undefined} src */
function showImage(src) {
  const img = byId('method-image', HTMLImageElement);
  img.hidden = src === undefined;
  if (src === undefined) img.removeAttribute('src');
  else img.src = src;
}

/** @param {SubmitEvent} event */
async function run(event) {
  event.preventDefault();
  const name = byId('method-select', HTMLSelectElement).value;
  const out = byId('method-result', HTMLPreElement);
  const button = byId('method-run', HTMLButtonElement);
  out.hidden = false;
  delete out.dataset.outcome;
  showImage(undefined);
  let params;
  try {
    params = readForm(byId('method-form', HTMLFormElement), fields);
  } catch (error) {
    out.dataset.outcome = 'error';
    out.textContent = messageOf(error);
    return;
  }
  out.textContent = `Running ${name}…`;
  button.disabled = true;
  try {
    const result = await rpc(name, params);
    out.dataset.outcome = 'result';
    const image = imageOf(result);
    showImage(image?.src);
    out.textContent = pretty(image === undefined ? result : image.shown);
  } catch (error) {
    out.dataset.outcome = 'error';
    out.textContent =
      error instanceof RpcError
        ? pretty({ error: { code: error.code, message: error.message, data: error.data } })
        : messageOf(error);
  } finally {
    button.disabled = false;
  }
}

let wired = false;

export async function startMethods() {
  if (!wired) {
    wired = true;
    byId('method-select', HTMLSelectElement).addEventListener('change', showMethod);
    byId('method-form', HTMLFormElement).addEventListener('submit', (e) => void run(e));
  }
  const response = await apiFetch('/openrpc.json');
  const doc = /** @type {{ methods: Method[] }} */ (parseJson(await response.text()));
  methods.clear();
  /** @type {Map<string, HTMLOptGroupElement>} */
  const groups = new Map();
  for (const method of doc.methods) {
    methods.set(method.name, method);
    const prefix = method.name.split('.')[0] ?? method.name;
    let group = groups.get(prefix);
    if (group === undefined) {
      group = h('optgroup', { label: prefix });
      groups.set(prefix, group);
    }
    group.append(h('option', { value: method.name, text: method.name }));
  }
  const select = byId('method-select', HTMLSelectElement);
  const previous = select.value;
  select.replaceChildren(...groups.values());
  select.value = methods.has(previous) ? previous : 'session.list';
  showMethod();
}
