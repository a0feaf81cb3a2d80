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
}

/** @param {SubmitEvent} event */
async function run(event) {
  event.preventDefault();
  const name = byId('method-select', HTMLSelectElement).value;
  const out = byId('method-result', HTMLPreElement);
  const button = byId('method-run', HTMLButtonElement);
  out.hidden = false;
  delete out.dataset.outcome;
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
    out.textContent = pretty(result);
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
