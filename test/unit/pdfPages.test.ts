import { describe, expect, it } from 'vitest';
import { pdfPageCount } from '../../src/methods/session/pdfPages.js';

const pdf = (body: string) => Buffer.from(`%PDF-1.4\n${body}\n%%EOF`, 'latin1');

describe('pdfPageCount', () => {
  it("reads the root Pages node's /Count, whatever the order of its keys", () => {
    expect(pdfPageCount(pdf('1 0 obj <</Type /Pages /Count 3 /Kids [2 0 R 3 0 R 4 0 R]>> endobj'))).toBe(3);
    expect(pdfPageCount(pdf('1 0 obj <</Count 12 /Kids [] /Type /Pages>> endobj'))).toBe(12);
  });

  it('takes the largest /Count of a page tree with intermediate nodes (the root)', () => {
    const tree =
      '1 0 obj <</Type /Pages /Count 5 /Kids [2 0 R 3 0 R]>> endobj 2 0 obj <</Type /Pages /Count 2 /Parent 1 0 R>> endobj 3 0 obj <</Type /Pages /Count 3 /Parent 1 0 R>> endobj';
    expect(pdfPageCount(pdf(tree))).toBe(5);
  });

  it('counts /Type /Page leaves (not /Pages) when there is no /Count', () => {
    expect(pdfPageCount(pdf('<</Type /Page>> <</Type/Page /Parent 1 0 R>> <</Type /Pages>>'))).toBe(2);
  });

  it('answers 0 for bytes that are no PDF', () => {
    expect(pdfPageCount(Buffer.from('hello'))).toBe(0);
  });
});
