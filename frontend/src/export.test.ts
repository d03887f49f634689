import { describe, expect, it } from 'vitest';
import { answerToMarkdown, exportFileName } from './export';
import { citation } from './testing/fixtures';

describe('answerToMarkdown', () => {
  it('turns known markers into footnotes with text, document, section, page and link', () => {
    const md = answerToMarkdown(
      {
        question: 'How do I install?',
        answer: 'Download it [#1]. Run it [#2][#1]. Not a citation: [#9].',
        model: 'llama3.2',
        created_at: '2026-01-02T03:04:05Z',
      },
      [citation(1), citation(2, { page: 4, path: '/docs/guide.pdf', title: 'Guide "PDF"' })],
    );
    expect(md).toContain('## How do I install?');
    expect(md).toContain('Download it [^1]. Run it [^2][^1]. Not a citation: [#9].');
    expect(md).toContain(
      '[^1]: "Download the AppImage and mark it executable (snippet 1)." — Install guide 1, § install-linux-1 <file:///docs/install-1.md>',
    );
    expect(md).toContain('[^2]: "Download the AppImage and mark it executable (snippet 2)." — Guide "PDF", § install-linux-2, page 4 <file:///docs/guide.pdf>');
    // Each footnote once, in order of first use.
    expect(md.match(/^\[\^1\]:/gm)).toHaveLength(1);
    expect(md.indexOf('[^1]:')).toBeLessThan(md.indexOf('[^2]:'));
    expect(md).toContain('model llama3.2, 2026-01-02T03:04:05.000Z');
  });

  it('escapes quotes inside the cited text', () => {
    const md = answerToMarkdown({ question: 'q', answer: 'x [#1]', model: '', created_at: '' }, [
      citation(1, { text: 'say "hi"' }),
    ]);
    expect(md).toContain('[^1]: "say \\"hi\\""');
  });

  it('escapes citation markers quoted from the evidence itself', () => {
    const md = answerToMarkdown({ question: 'q', answer: 'Markers look like this [#1].', model: '', created_at: '' }, [
      citation(1, { text: 'Cite with a marker like [#2].' }),
    ]);
    expect(md).toContain('[^1]: "Cite with a marker like [\\#2]."');
    expect(md).not.toMatch(/\[#\d+\]/);
  });
});

describe('exportFileName', () => {
  it('makes a safe file name from the question', () => {
    expect(exportFileName('How do I install Footnote on Linux?')).toBe('how-do-i-install-footnote-on-linux.md');
    expect(exportFileName('???')).toBe('answer.md');
  });
});
