// @ts-check
// The runner page's eval samples on the page: the list of the samples file, the box a sample's
// JSON is shown or pasted in, what is wrong with a bad one, and the task and success check fields
// stepping aside while the box holds a sample. What a sample is: runnerSamples.js.
import {
  describeCheck,
  parseSampleText,
  parseSamplesFile,
  readCapped,
  SAMPLES_LOAD_TIMEOUT_MS,
  SAMPLES_URL,
} from './runnerSamples.js';

/**
 * @typedef {import('./runnerSamples.js').Sample} Sample
 * @typedef {import('./runnerSamples.js').SampleParse} SampleParse
 * @typedef {{
 *   select: HTMLSelectElement, note: HTMLElement, box: HTMLTextAreaElement, error: HTMLElement,
 *   summary: HTMLElement, task: HTMLTextAreaElement, stepAside: HTMLElement[],
 * }} PickerElements
 */

/** @param {Sample} sample */
function sampleText(sample) {
  return JSON.stringify(sample, null, 2);
}

/**
 * Wires the sample list and box, and loads the samples file into the list.
 * @param {PickerElements} ui
 * @returns {{ current(): SampleParse | undefined, show(): void }} current: what the box holds
 *   (undefined when it is empty: the task and success check fields are used), a sample or why it
 *   is not one
 */
export function startSamplePicker(ui) {
  /** The samples of the samples file, by id. */
  /** @type {Map<string, Sample>} */
  const fileSamples = new Map();

  /** @returns {SampleParse | undefined} */
  const current = () => {
    const text = ui.box.value.trim();
    return text === '' ? undefined : parseSampleText(text);
  };

  // A sample stands in for the task and success check fields (disabled and hidden while it does);
  // a bad one says what is wrong at once, and Run refuses it.
  const show = () => {
    const parsed = current();
    ui.task.disabled = parsed !== undefined;
    for (const field of ui.stepAside) field.hidden = parsed !== undefined;
    ui.error.hidden = parsed === undefined || parsed.ok;
    ui.summary.hidden = parsed === undefined || !parsed.ok;
    if (parsed !== undefined && !parsed.ok) ui.error.textContent = `Bad sample: ${parsed.error}.`;
    if (parsed !== undefined && parsed.ok) {
      const { sample } = parsed;
      const start = sample.startUrl === undefined ? '' : `, starting at ${sample.startUrl}`;
      ui.summary.textContent = `Runs sample ${sample.id}${start}: ${sample.task} Reward from the check ${describeCheck(sample.check)}.`;
    }
  };

  ui.select.addEventListener('change', () => {
    const picked = fileSamples.get(ui.select.value);
    ui.box.value = picked === undefined ? '' : sampleText(picked);
    show();
  });
  ui.box.addEventListener('input', () => {
    // Edited away from the picked sample: the list no longer names what runs.
    const picked = fileSamples.get(ui.select.value);
    if (picked !== undefined && ui.box.value.trim() !== sampleText(picked)) ui.select.value = '';
    show();
  });

  /**
   * Fetches the samples file (within SAMPLES_LOAD_TIMEOUT_MS and MAX_SAMPLES_FILE_BYTES) and adds
   * its valid samples to the list.
   * @returns {Promise<string[]>} what was wrong with the file or its entries
   */
  const readSamplesFile = async () => {
    const res = await fetch(SAMPLES_URL, { signal: AbortSignal.timeout(SAMPLES_LOAD_TIMEOUT_MS) });
    if (!res.ok) return [`${SAMPLES_URL} answered HTTP ${res.status}`];
    const file = parseSamplesFile(await readCapped(res));
    for (const sample of file.samples) {
      fileSamples.set(sample.id, sample);
      const option = document.createElement('option');
      option.value = sample.id;
      option.textContent = sample.title;
      ui.select.append(option);
    }
    return file.errors;
  };

  // What went wrong with the file is said under the list; the box works without it.
  void readSamplesFile()
    .catch((/** @type {unknown} */ error) => [
      `${SAMPLES_URL} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    ])
    .then((errors) => {
      const count = `${fileSamples.size} sample${fileSamples.size === 1 ? '' : 's'} from ${SAMPLES_URL}`;
      ui.note.textContent = errors.length === 0 ? `${count}.` : `${count}; left out: ${errors.join('; ')}.`;
      ui.note.classList.toggle('error', errors.length > 0);
      ui.note.dataset.state = 'loaded';
    });

  return { current, show };
}
