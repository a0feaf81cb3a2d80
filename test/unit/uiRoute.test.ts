// Where the service finds the web console's files, run from src/ (tsx) or from dist/ (npm start).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findUiDir, UI_CSP } from '../../src/http/uiRoute.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('findUiDir', () => {
  it('finds ui/ from src/http and from dist/src/http', () => {
    expect(findUiDir(join(ROOT, 'src', 'http'))).toBe(join(ROOT, 'ui'));
    expect(findUiDir(join(ROOT, 'dist', 'src', 'http'))).toBe(join(ROOT, 'ui'));
    expect(existsSync(join(ROOT, 'ui', 'index.html'))).toBe(true);
  });

  it('answers undefined where there is no console', () => {
    expect(findUiDir('/nonexistent/a/b/c')).toBeUndefined();
  });
});

describe('UI_CSP', () => {
  it('allows scripts and styles from the service only', () => {
    expect(UI_CSP).toContain("script-src 'self'");
    expect(UI_CSP).toContain("style-src 'self'");
    expect(UI_CSP).not.toMatch(/unsafe|https?:|\*/);
    expect(UI_CSP).toContain("require-trusted-types-for 'script'");
  });
});
