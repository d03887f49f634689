// An answer as portable Markdown: [#n] markers become footnotes that carry
// the cited text, the document, its section (and page) and a file link.
import { MARKER_SOURCE, citationIndex, excerpt } from './citations';
import { fileLink } from './source';
import type { Answer, Citation } from './types';

export function answerToMarkdown(answer: Pick<Answer, 'question' | 'answer' | 'model' | 'created_at'>, citations: Citation[]): string {
  const index = citationIndex(citations);
  const used: number[] = [];
  const body = answer.answer.replace(new RegExp(MARKER_SOURCE, 'g'), (marker, digits: string) => {
    const n = Number(digits);
    if (!index.has(n)) return marker;
    if (!used.includes(n)) used.push(n);
    return `[^${n}]`;
  });
  const lines = [`## ${answer.question.replace(/\s+/g, ' ').trim()}`, '', body.trim(), ''];
  for (const n of used) {
    const c = index.get(n);
    if (!c) continue;
    const where = [c.title || c.path, `§ ${c.section_id}`];
    if (c.page) where.push(`page ${c.page}`);
    const link = c.source_url || fileLink(c.path);
    // Evidence may itself contain "[#n]" (e.g. documentation about citations);
    // escape it so the export never shows a marker that is not a footnote.
    const quote = excerpt(c.text, 400)
      .replace(/"/g, '\\"')
      .replace(new RegExp(MARKER_SOURCE, 'g'), (_m, digits: string) => `[\\#${digits}]`);
    lines.push(`[^${n}]: "${quote}" — ${where.join(', ')}${link ? ` <${link}>` : ''}`);
  }
  const meta = [answer.model && `model ${answer.model}`, answer.created_at && new Date(answer.created_at).toISOString()]
    .filter(Boolean)
    .join(', ');
  if (meta) lines.push('', `*Answered by Footnote (${meta}).*`);
  return `${lines.join('\n')}\n`;
}

/** Offers text as a file download (works in browsers; the desktop window may save it to Downloads). */
export function downloadText(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file name from the question: lower-case words, at most 60 characters. */
export function exportFileName(question: string): string {
  const slug = question
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || 'answer'}.md`;
}
