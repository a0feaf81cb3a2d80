// page.upload's mechanics: files handed to an <input type=file> (visible or hidden), or to the file
// chooser a button opens. Playwright sets the files itself; no event is synthesised in the page.
import { errors, type FileChooser, type Locator, type Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';

/**
 * A page may open a file chooser only during the user activation of a click, which Chromium keeps
 * for 5 s: past that after the click no chooser can come, so the wait stops there even when the
 * call's timeout is longer.
 */
export const FILE_CHOOSER_WAIT_MS = 5_000;

export interface UploadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

export type UploadVia = 'input' | 'chooser';

function refuse(message: string, path = '/files'): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for page.upload: ${message}`, {
    errors: [{ path, message, keyword: 'maxItems', params: {} }],
  });
}

const severalRefused = (count: number, what: string): ServiceError =>
  refuse(`${what} takes one file, not ${count}; only an <input type=file multiple> takes several`);

/**
 * Sets the files of the element `target` names: an <input type=file> directly (hidden ones too), or
 * any other element by clicking it and answering the file chooser it opens. An element that is
 * neither fails with ACTION_FAILED; several files for a single-file input with INVALID_PARAMS.
 */
export async function uploadFiles(
  page: Page,
  target: Locator,
  files: UploadFile[],
  timeout: number,
): Promise<UploadVia> {
  const started = Date.now();
  const left = (): number => Math.max(1, timeout - (Date.now() - started));
  const input = await target.evaluate(
    (el) => (el instanceof HTMLInputElement && el.type === 'file' ? { multiple: el.multiple } : null),
    undefined,
    { timeout },
  );
  if (input !== null) {
    if (files.length > 1 && !input.multiple) throw severalRefused(files.length, 'The <input type=file>');
    await target.setInputFiles(files, { timeout: left() });
    return 'input';
  }
  const chooser = await chooserOpenedBy(page, target, left);
  if (files.length > 1 && !chooser.isMultiple())
    throw severalRefused(files.length, 'The file chooser this element opens');
  await chooser.setFiles(files, { timeout: left() });
  return 'chooser';
}

/** Clicks the element and waits for the file chooser it opens, within the time left and the activation. */
async function chooserOpenedBy(page: Page, target: Locator, left: () => number): Promise<FileChooser> {
  const noChooser = (): ServiceError =>
    new ServiceError(
      'ACTION_FAILED',
      'The element is not an <input type=file> and clicking it opened no file chooser: give the file input itself (hidden ones work too) or the button that opens it.',
    );
  const opened = page.waitForEvent('filechooser', { timeout: left() });
  // Read below once the click is done; until then a rejection must not go unhandled.
  opened.catch(() => undefined);
  await target.click({ timeout: left() });
  try {
    return await withDeadline(opened, Math.min(left(), FILE_CHOOSER_WAIT_MS), noChooser);
  } catch (error) {
    // Playwright's own wait ran out (the call's timeout was the shorter): the same answer.
    throw error instanceof errors.TimeoutError ? noChooser() : error;
  }
}
