import { describe, expect, it } from 'vitest';
import { toolContent } from '../../src/http/toolContent.js';

describe('toolContent (the content of a seed 002 execute answer)', () => {
  it('is the text of the reading methods, with a note when a cursor continues it', () => {
    expect(toolContent('page.text', { text: 'Hello' })).toBe('Hello');
    expect(toolContent('page.snapshot', { snapshot: '- heading "A"', revision: 1 })).toBe('- heading "A"');
    expect(toolContent('page.content', { html: '<p>x</p>', truncated: false })).toBe('<p>x</p>');
    expect(toolContent('page.text', { text: 'Part', cursor: 'c1' })).toBe(
      'Part\n[more: call page.text again with cursor "c1"]',
    );
  });

  it('says what a screenshot is and leaves its base64 out', () => {
    const content = toolContent('screenshot', {
      base64: 'iVBORw0KGgo=',
      mime: 'image/png',
      bytes: 8,
      width: 10,
      height: 20,
      scale: 1,
    });
    expect(content).toBe('Screenshot image/png, 10x20 px, 8 bytes: the image is in details.base64.');
    expect(content).not.toContain('iVBOR');
  });

  it('is JSON for any other method, even one with a text field', () => {
    const result = { text: 'Save', ref: 'e3' };
    expect(toolContent('find.byText', result)).toBe(JSON.stringify(result));
    expect(toolContent('page.evaluate', undefined)).toBe('null');
  });
});
