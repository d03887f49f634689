// An answer as portable Markdown: [#n] markers become footnotes that carry
// the cited text, the document, its section (and page) and a file link;
// verified claims are listed with their verdict and the supporting span
// (its text and its offsets in the document) of each cited passage.
import { MARKER_SOURCE, citationIndex, excerpt } from './citations';
import { verdictLabel } from './claims';
import { formatScore } from './format';
import { fileLink } from './source';
import type { Answer, Citation, ClaimResult } from './types';

export function answerToMarkdown(
  answer: Pick<Answer, 'question' | 'answer' | 'model' | 'created_at'> & Partial<Pick<Answer, 'claims' | 'verification'>>,
  citations: Citation[],
): string {
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
  lines.push(...claimLines(answer.claims, answer.verification?.mode, used));
  const meta = [answer.model && `model ${answer.model}`, answer.created_at && new Date(answer.created_at).toISOString()]
    .filter(Boolean)
    .join(', ');
  if (meta) lines.push('', `*Answered by Footnote (${meta}).*`);
  return `${lines.join('\n')}\n`;
}

/** Quoted for the export: quotes escaped, and no "[#n]" that could read as a marker. */
function quoted(text: string, max: number): string {
  return `"${excerpt(text, max)
    .replace(/"/g, '\\"')
    .replace(new RegExp(MARKER_SOURCE, 'g'), (_m, digits: string) => `[\\#${digits}]`)}"`;
}

/**
 * The verified claims: per claim its verdict and score, and per cited
 * passage the verdict, the supporting span's text and its code-point
 * offsets in the document, and why it fails.
 */
function claimLines(claims: readonly ClaimResult[] | null | undefined, mode: string | undefined, footnotes: readonly number[]): string[] {
  const checked = (claims ?? []).filter((c) => c.verdict !== '');
  if (checked.length === 0) return [];
  const ok = checked.filter((c) => c.verdict === 'supported' || c.verdict === 'partial').length;
  const out = ['', `### Claims checked (${ok} of ${checked.length} verified${mode ? `, ${mode}` : ''})`, ''];
  checked.forEach((c, i) => {
    out.push(`${i + 1}. **${verdictLabel(c.verdict)}** (score ${formatScore(c.score)}): ${quoted(c.claim.plain, 300)}`);
    if (c.verdict === 'uncited') out.push(`   - ${c.reason || 'no citation covers this claim'}`);
    for (const r of c.results ?? []) {
      const where = r.span.text
        ? `${quoted(r.span.text, 300)} (chars ${r.span.offsets.start}–${r.span.offsets.end})`
        : 'no supporting span';
      const cite = footnotes.includes(r.n) ? `[^${r.n}]` : `passage ${r.n}`;
      out.push(`   - ${cite} ${verdictLabel(r.verdict)}, score ${formatScore(r.score)}: ${where}${r.reason ? `; ${r.reason}` : ''}`);
    }
  });
  return out;
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

/** One turn of a thread for the export (a ThreadAnswer's answer, with its position). */
export interface ExportTurn {
  seq: number;
  answer: Pick<Answer, 'question' | 'answer' | 'model' | 'created_at' | 'citations'> &
    Partial<Pick<Answer, 'claims' | 'verification' | 'followup'>>;
}

/**
 * A whole thread as one Markdown file: each turn as answerToMarkdown renders
 * it, with what a follow-up searched for, and its footnotes renamed per turn
 * ([^2-1] is turn 2's passage 1) so footnotes of different turns never clash.
 */
export function threadToMarkdown(title: string, turns: readonly ExportTurn[]): string {
  const parts = [`# ${title.replace(/\s+/g, ' ').trim() || 'Conversation'}`, ''];
  for (const t of turns) {
    let md = answerToMarkdown(t.answer, t.answer.citations ?? []).replace(/\[\^(\d+)\]/g, (_m, n: string) => `[^${t.seq}-${n}]`);
    const searched = t.answer.followup?.standalone;
    if (searched) {
      const [heading, ...rest] = md.split('\n');
      md = [heading, '', `*Searched for: ${searched.replace(/\s+/g, ' ').trim()}*`, ...rest].join('\n');
    }
    parts.push(md);
  }
  return parts.join('\n');
}
