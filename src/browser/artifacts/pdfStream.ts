// page.pdf read from Chromium in slices, so a page that prints to a gigabyte never fills the service's
// memory: Playwright's page.pdf reads the whole stream into one Buffer before a cap can look at it.
// The same printToPDF call Playwright makes (server/chromium/crPdf.ts: paper formats, units), with
// the stream read PDF_READ_BYTES at a time and closed as soon as the total passes the cap.
import type { CDPSession } from 'playwright-core';

/** Bytes asked of Chromium per IO.read. */
const PDF_READ_BYTES = 1024 * 1024;

/** Paper sizes in inches, as Playwright has them. */
const PAPER: Record<string, { width: number; height: number }> = {
  letter: { width: 8.5, height: 11 },
  legal: { width: 8.5, height: 14 },
  tabloid: { width: 11, height: 17 },
  ledger: { width: 17, height: 11 },
  a0: { width: 33.1, height: 46.8 },
  a1: { width: 23.4, height: 33.1 },
  a2: { width: 16.54, height: 23.4 },
  a3: { width: 11.7, height: 16.54 },
  a4: { width: 8.27, height: 11.7 },
  a5: { width: 5.83, height: 8.27 },
  a6: { width: 4.13, height: 5.83 },
};

const PIXELS_PER_UNIT: Record<string, number> = { px: 1, in: 96, cm: 37.8, mm: 3.78 };

/** "8.5in", "210mm", "2cm", "800px" or "800" (pixels) in inches; undefined when not given. */
function inches(length: string | undefined): number | undefined {
  if (length === undefined) return undefined;
  const unit = length.slice(-2).toLowerCase();
  const known = PIXELS_PER_UNIT[unit];
  const pixels = known === undefined ? Number(length) : Number(length.slice(0, -2)) * known;
  return Number.isFinite(pixels) ? pixels / 96 : undefined;
}

export interface PdfOptions {
  format?: string | undefined;
  width?: string | undefined;
  height?: string | undefined;
  landscape: boolean;
  printBackground: boolean;
  scale: number;
  pageRanges?: string | undefined;
  margin?: { top?: string; right?: string; bottom?: string; left?: string } | undefined;
}

/** The PDF was larger than the cap: reading stopped there. */
export class PdfTooLargeError extends Error {
  constructor(readonly readBytes: number) {
    super(`the PDF passed ${readBytes} bytes`);
  }
}

/** Prints the page over its CDP session and reads the PDF, failing with PdfTooLargeError past maxBytes. */
export async function printPdf(cdp: CDPSession, options: PdfOptions, maxBytes: number): Promise<Buffer> {
  const paper = options.format === undefined ? undefined : PAPER[options.format.toLowerCase()];
  const margin = options.margin ?? {};
  const { stream } = await cdp.send('Page.printToPDF', {
    transferMode: 'ReturnAsStream',
    landscape: options.landscape,
    printBackground: options.printBackground,
    scale: options.scale,
    paperWidth: paper?.width ?? inches(options.width) ?? 8.5,
    paperHeight: paper?.height ?? inches(options.height) ?? 11,
    marginTop: inches(margin.top) ?? 0,
    marginBottom: inches(margin.bottom) ?? 0,
    marginLeft: inches(margin.left) ?? 0,
    marginRight: inches(margin.right) ?? 0,
    pageRanges: options.pageRanges ?? '',
  });
  if (stream === undefined) throw new Error('Chromium answered printToPDF without a stream');
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const read = await cdp.send('IO.read', { handle: stream, size: PDF_READ_BYTES });
      const chunk = Buffer.from(read.data, read.base64Encoded === true ? 'base64' : 'utf8');
      total += chunk.length;
      if (total > maxBytes) throw new PdfTooLargeError(total);
      chunks.push(chunk);
      if (read.eof) break;
    }
  } finally {
    // The stream holds the PDF in the browser until it is closed; a closed page took it along.
    await cdp.send('IO.close', { handle: stream }).catch(() => undefined);
  }
  return Buffer.concat(chunks);
}
