import { describe, expect, it } from 'vitest';
import { answerToMarkdown, exportFileName, threadToMarkdown } from './export';
import { citation } from './testing/fixtures';
import unsupportedJson from './testdata/answer-unsupported.json';
import type { Answer } from './types';

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

describe('answerToMarkdown with verified claims', () => {
  const real = unsupportedJson as unknown as Answer;

  it('lists each claim with its verdict and, per cited passage, the supporting span with its offsets and the reason', () => {
    const md = answerToMarkdown(real, real.citations ?? []);
    expect(md).toContain('### Claims checked (1 of 2 verified, strict)');
    expect(md).toContain('1. **not supported** (score 0.20): "Shared exports 📎 have an upload limit of 40 MB per file."');
    expect(md).toContain(
      '   - [^1] not supported, score 0.20: "Shared exports 📎 have an upload limit of 20 MB per file." (chars 27–83); the passage says 20 MB, the claim says 40 MB',
    );
    expect(md).toMatch(/2\. \*\*supported\*\* \(score 0\.86\): "It also notes: The footnote command/);
    expect(md).toContain('   - [^2] supported, score 0.86: "The footnote command does everything');
    // The claims section follows the footnotes and never reintroduces [#n] markers.
    expect(md.indexOf('[^1]:')).toBeLessThan(md.indexOf('### Claims checked'));
    expect(md).not.toMatch(/\[#\d+\]/);
  });

  it('says why an uncited claim is listed and escapes markers inside spans', () => {
    const base = real.claims![0]!;
    const md = answerToMarkdown(
      {
        ...real,
        claims: [
          { ...base, verdict: 'uncited', results: null, reason: 'no citation covers this claim' },
          { ...base, results: [{ ...base.results![0]!, span: { ...base.results![0]!.span, text: 'see [#1] "here"' } }] },
        ],
      },
      real.citations ?? [],
    );
    expect(md).toContain('1. **not cited** (score 0.20): "Shared exports');
    expect(md).toContain('   - no citation covers this claim');
    expect(md).toContain('"see [\\#1] \\"here\\"" (chars 27–83)');
  });

  it('adds no claims section without verification results', () => {
    expect(answerToMarkdown({ question: 'q', answer: 'x [#1]', model: '', created_at: '' }, [citation(1)])).not.toContain('Claims checked');
  });
});

describe('threadToMarkdown', () => {
  it('exports every turn with its search and footnotes that do not clash between turns', () => {
    const md = threadToMarkdown('Main office', [
      { seq: 1, answer: { question: 'When was the main office opened?', answer: 'In 1998 [#1].', model: 'm', created_at: '', citations: [citation(1)] } },
      {
        seq: 2,
        answer: {
          question: 'And who designed it?',
          answer: 'Mara Lind [#1].',
          model: 'm',
          created_at: '',
          citations: [citation(1, { title: 'Office' })],
          followup: { asked: 'And who designed it?', standalone: 'Who designed the main office?', rewrite_source: 'model', turns_used: [1], turns_dropped: 0, history_tokens: 9 },
        },
      },
    ]);
    expect(md.startsWith('# Main office\n')).toBe(true);
    expect(md).toContain('## When was the main office opened?');
    expect(md).toContain('In 1998 [^1-1].');
    expect(md).toContain('## And who designed it?\n\n*Searched for: Who designed the main office?*');
    expect(md).toContain('Mara Lind [^2-1].');
    expect(md.match(/^\[\^1-1\]:/gm)).toHaveLength(1);
    expect(md.match(/^\[\^2-1\]: .*Office/gm)).toHaveLength(1);
    expect(md).not.toMatch(/\[\^1\]/);
  });
});
