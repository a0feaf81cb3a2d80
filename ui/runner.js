// @ts-check
// The runner page's DOM: the settings kept in localStorage, the run and stop buttons, the live
// trace. The loop itself is runnerLoop.js; the sample list and box, runnerSamplePicker.js.
import {
  DEFAULT_MAX_STEPS,
  DEFAULT_TOOL_METHODS,
  MAX_STEPS_LIMIT,
  ModelApiError,
  runAgent,
} from './runnerLoop.js';
import { getKey, KEY_STORAGE_NAME } from './api.js';
import { startSamplePicker } from './runnerSamplePicker.js';
import { startTopBar } from './topBar.js';

/**
 * localStorage names. The service key's is the console's (the top bar sets it, topBar.js); the
 * Anthropic key never leaves this page but to the model.
 */
export const STORAGE = {
  serviceKey: KEY_STORAGE_NAME,
  anthropicKey: 'pwrpc.anthropicKey',
  baseUrl: 'pwrpc.runner.baseUrl',
  model: 'pwrpc.runner.model',
  maxSteps: 'pwrpc.runner.maxSteps',
  tools: 'pwrpc.runner.tools',
};
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MODEL = 'claude-sonnet-4-5';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function el(id, type) {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`runner.html has no #${id}`);
  return found;
}

const fields = {
  anthropicKey: el('anthropic-key', HTMLInputElement),
  baseUrl: el('base-url', HTMLInputElement),
  model: el('model', HTMLInputElement),
  maxSteps: el('max-steps', HTMLInputElement),
  tools: el('tools', HTMLTextAreaElement),
};
const task = el('task', HTMLTextAreaElement);
const successCheck = el('success-check', HTMLInputElement);
const runButton = el('run', HTMLButtonElement);
const stopButton = el('stop', HTMLButtonElement);
const status = el('status', HTMLParagraphElement);
const rewardLine = el('reward', HTMLParagraphElement);
const trace = el('trace', HTMLOListElement);

/** @type {Record<keyof typeof fields, string>} */
const defaults = {
  anthropicKey: '',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  maxSteps: String(DEFAULT_MAX_STEPS),
  tools: DEFAULT_TOOL_METHODS.join(', '),
};
el('max-steps-limit', HTMLSpanElement).textContent = String(MAX_STEPS_LIMIT);
fields.maxSteps.max = String(MAX_STEPS_LIMIT);
for (const name of /** @type {(keyof typeof fields)[]} */ (Object.keys(fields))) {
  const input = fields[name];
  input.value = localStorage.getItem(STORAGE[name]) ?? defaults[name];
  input.addEventListener('change', () => localStorage.setItem(STORAGE[name], input.value.trim()));
}

const samples = startSamplePicker({
  select: el('sample', HTMLSelectElement),
  note: el('samples-note', HTMLParagraphElement),
  box: el('sample-json', HTMLTextAreaElement),
  error: el('sample-error', HTMLParagraphElement),
  summary: el('sample-check', HTMLParagraphElement),
  task,
  stepAside: [el('task-field', HTMLLabelElement), el('success-check-field', HTMLLabelElement)],
});

/** The last connection the page's CSP refused (connect-src), to explain a failed fetch. */
let refusedConnection = '';
document.addEventListener('securitypolicyviolation', (e) => {
  if (e.effectiveDirective === 'connect-src') refusedConnection = e.blockedURI;
});

/** @type {AbortController | undefined} */
let running;

/**
 * @param {string} text
 * @param {boolean} [error]
 */
function setStatus(text, error = false) {
  status.textContent = text;
  status.classList.toggle('error', error);
}

/**
 * @param {string} kind
 * @param {string} label
 * @returns {HTMLLIElement}
 */
function entry(kind, label) {
  const li = document.createElement('li');
  li.className = `entry entry-${kind}`;
  li.dataset.kind = kind;
  const span = document.createElement('span');
  span.className = 'label';
  span.textContent = label;
  li.append(span, document.createElement('br'));
  trace.append(li);
  li.scrollIntoView({ block: 'nearest' });
  return li;
}

/** @param {string} text */
function pre(text) {
  const p = document.createElement('pre');
  p.textContent = text;
  return p;
}

/** The text entry the streamed text goes to; a new one after every tool call. */
/** @type {HTMLElement | undefined} */
let currentText;

/**
 * The trace row of a tool call, by its tool_use id.
 * @param {string} id
 * @returns {HTMLElement | undefined}
 */
function toolCallRow(id) {
  for (const li of trace.querySelectorAll('.entry-tool-call'))
    if (li instanceof HTMLElement && li.dataset.toolUseId === id) return li;
  return undefined;
}

/** @param {import('./runnerLoop.js').TraceEvent} e */
function show(e) {
  if (e.kind === 'text') {
    if (currentText === undefined) {
      const li = entry('text', 'model');
      currentText = document.createElement('span');
      currentText.className = 'text';
      li.append(currentText);
    }
    currentText.textContent = `${currentText.textContent ?? ''}${e.text}`;
    return;
  }
  currentText = undefined;
  if (e.kind === 'status') entry('status', e.text);
  else if (e.kind === 'step') setStatus(`Running: step ${e.step} of at most ${e.maxSteps}`);
  else if (e.kind === 'tool_call') {
    const li = entry('tool-call', `tool call ${e.method}`);
    li.dataset.toolUseId = e.id;
    li.append(pre(JSON.stringify(e.input, null, 2)));
  } else if (e.kind === 'tool_progress') {
    // The streamed execute says the call still runs: the row of its call shows for how long.
    const call = toolCallRow(e.id);
    if (call === undefined) return;
    let running = call.querySelector('.tool-running');
    if (running === null) {
      running = document.createElement('span');
      running.className = 'tool-running';
      call.querySelector('.label')?.after(running);
    }
    running.textContent = ` running … ${Math.round(e.elapsedMs / 1000)} s`;
    call.dataset.progressEvents = String(Number(call.dataset.progressEvents ?? '0') + 1);
  } else if (e.kind === 'tool_result') {
    toolCallRow(e.id)?.querySelector('.tool-running')?.remove();
    const li = entry('tool-result', `${e.isError ? 'tool error' : 'result'} of ${e.method}`);
    li.dataset.toolUseId = e.id;
    li.classList.toggle('error', e.isError);
    li.append(pre(e.text));
    if (e.image !== undefined) {
      const img = document.createElement('img');
      img.alt = `screenshot from ${e.method}`;
      img.src = `data:${e.image.mime};base64,${e.image.base64}`;
      li.append(img);
    }
  } else if (e.kind === 'reward') {
    // Which check ran, through which method, and what it saw: the reward can be checked by eye.
    const li = entry('check', `check ${e.checkKind} via ${e.method}: reward ${e.reward}`);
    li.dataset.checkKind = e.checkKind;
    li.dataset.reward = String(e.reward);
    li.append(pre(`${e.check}\nsaw: ${e.saw}`));
    rewardLine.hidden = false;
    rewardLine.dataset.reward = String(e.reward);
    rewardLine.dataset.checkKind = e.checkKind;
    rewardLine.className = e.reward === 1 ? 'pass' : 'fail';
    rewardLine.textContent = `Reward ${e.reward}: the check ${e.check} ${e.reward === 1 ? 'passed' : 'failed'}`;
  }
}

/** @param {unknown} error */
function explain(error) {
  if (error instanceof DOMException && error.name === 'AbortError') return 'Stopped.';
  if (error instanceof ModelApiError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  if (refusedConnection !== '')
    return `${message}: this service's Content-Security-Policy refused the connection to ${refusedConnection}. Add the Messages API's origin to the service's UI_MODEL_API_ORIGINS (docs/runner.md).`;
  return message;
}

async function run() {
  const sample = samples.current();
  if (sample !== undefined && !sample.ok) {
    samples.show();
    setStatus(`Bad sample: ${sample.error}. Fix it, or empty the sample box to write a task yourself.`, true);
    status.dataset.state = 'invalid';
    return;
  }
  const picked = sample?.sample;
  const values = {
    serviceKey: getKey() ?? '',
    anthropicKey: fields.anthropicKey.value.trim(),
    baseUrl: fields.baseUrl.value.trim().replace(/\/+$/, ''),
    model: fields.model.value.trim(),
    maxSteps: Number(fields.maxSteps.value),
    tools: fields.tools.value.trim(),
  };
  for (const [name, input] of Object.entries(fields))
    localStorage.setItem(STORAGE[/** @type {keyof typeof fields} */ (name)], input.value.trim());
  const missing = [
    values.serviceKey === '' && 'the service API key (in the top bar)',
    values.anthropicKey === '' && 'the Anthropic API key',
    !/^https?:\/\/[^/]+/.test(values.baseUrl) && 'an http(s) base URL',
    values.model === '' && 'a model',
    picked === undefined && task.value.trim() === '' && 'a task',
    !(Number.isInteger(values.maxSteps) && values.maxSteps >= 1 && values.maxSteps <= MAX_STEPS_LIMIT) &&
      `max steps between 1 and ${MAX_STEPS_LIMIT}`,
  ].filter((m) => typeof m === 'string');
  if (missing.length > 0) {
    setStatus(`Missing: ${missing.join(', ')}.`, true);
    status.dataset.state = 'invalid';
    return;
  }
  trace.replaceChildren();
  rewardLine.hidden = true;
  delete rewardLine.dataset.reward;
  currentText = undefined;
  refusedConnection = '';
  const controller = new AbortController();
  running = controller;
  runButton.disabled = true;
  stopButton.disabled = false;
  setStatus('Starting');
  try {
    const { outcome } = await runAgent({
      fetch: (input, init) => fetch(input, init),
      serviceKey: values.serviceKey,
      apiKey: values.anthropicKey,
      baseUrl: values.baseUrl,
      model: values.model,
      ...(picked === undefined
        ? {
            task: task.value.trim(),
            ...(successCheck.value.trim() === '' ? {} : { check: { textContains: successCheck.value } }),
          }
        : {
            task: picked.task,
            check: picked.check,
            ...(picked.startUrl === undefined ? {} : { startUrl: picked.startUrl }),
          }),
      maxSteps: values.maxSteps,
      toolMethods:
        values.tools.toLowerCase() === 'all'
          ? 'all'
          : values.tools
              .split(/[\s,]+/)
              .map((t) => t.trim())
              .filter((t) => t !== ''),
      signal: controller.signal,
      onEvent: show,
    });
    setStatus(`Done: ${outcome}.`);
    status.dataset.state = 'done';
  } catch (error) {
    const stopped = controller.signal.aborted;
    setStatus(stopped ? 'Stopped.' : `Error: ${explain(error)}`, !stopped);
    status.dataset.state = stopped ? 'stopped' : 'error';
  } finally {
    // A tool call the run ended during (stop, an error) never got its result.
    for (const left of trace.querySelectorAll('.tool-running')) {
      left.textContent = ' not finished';
      left.className = 'tool-unfinished';
    }
    running = undefined;
    runButton.disabled = false;
    stopButton.disabled = true;
  }
}

runButton.addEventListener('click', () => {
  delete status.dataset.state;
  void run();
});
stopButton.addEventListener('click', () => running?.abort());

// The top bar's key field (shared with the console): the runner has nothing to start or stop with
// the key; a run reads the key kept then.
void startTopBar({ show: () => undefined, start: () => undefined, stop: () => undefined });
