// The page count of a PDF Chromium printed, read from its page tree: the root Pages node's /Count
// (the largest /Count of a /Type /Pages dictionary), else the /Type /Page leaves counted. Chromium
// (Skia) writes its dictionaries uncompressed, with no object streams; only page contents are
// deflated, so a dictionary keyword is never read out of compressed bytes by accident.

const PAGES_COUNT = /\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g;
const PAGE_LEAF = /\/Type\s*\/Page(?![A-Za-z])/g;

/** The number of pages of a PDF; 0 when it has no page tree (not a PDF). */
export function pdfPageCount(pdf: Buffer): number {
  // latin1: one character per byte, so binary streams cannot break the text around them.
  const text = pdf.toString('latin1');
  let root = 0;
  for (const match of text.matchAll(PAGES_COUNT)) root = Math.max(root, Number(match[1] ?? match[2]));
  return root > 0 ? root : (text.match(PAGE_LEAF) ?? []).length;
}
