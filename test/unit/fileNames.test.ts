import { describe, expect, it } from 'vitest';
import { cleanFileName, MAX_FILE_NAME_CHARS, mimeOfName } from '../../src/browser/artifacts/fileNames.js';

describe('cleanFileName', () => {
  it('keeps the last part of a path and drops control characters', () => {
    expect(cleanFileName('../../etc/pass\u0007wd')).toBe('passwd');
    expect(cleanFileName('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(cleanFileName('  notes.txt \n')).toBe('notes.txt');
  });

  it('falls back when nothing usable is left, and bounds the length', () => {
    expect(cleanFileName('')).toBe('download');
    expect(cleanFileName('..', 'file')).toBe('file');
    expect(cleanFileName('dir/')).toBe('download');
    expect(cleanFileName('x'.repeat(1000))).toHaveLength(MAX_FILE_NAME_CHARS);
  });
});

describe('mimeOfName', () => {
  it('maps known extensions, case-insensitively, and the rest to application/octet-stream', () => {
    expect(mimeOfName('a.TXT')).toBe('text/plain');
    expect(mimeOfName('report.pdf')).toBe('application/pdf');
    expect(mimeOfName('archive.tar.gz')).toBe('application/gzip');
    expect(mimeOfName('noext')).toBe('application/octet-stream');
    expect(mimeOfName('weird.xyz')).toBe('application/octet-stream');
  });
});
