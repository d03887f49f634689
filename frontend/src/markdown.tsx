// Renders model output as React elements built from a Markdown syntax tree
// (marked's lexer only; its HTML renderer is never used). Nothing the model
// wrote is parsed as HTML or put into innerHTML: raw HTML, images, reference
// definitions and links that are not absolute http(s) show as the characters
// written, so nothing disappears; validated [#n] markers become citation
// chips wherever they stand outside code, and claims that verification
// flagged are marked where they stand.
import { Lexer, type Token, type Tokens } from 'marked';
import { Fragment, type ReactNode } from 'react';
import { MARKER_SOURCE } from './citations';
import { claimRanges, isFlagged, markerClaims } from './claims';
import { webLink } from './links';
import type { ClaimResult } from './types';

export interface ChipOptions {
  /** Citation numbers that exist for this answer; other markers stay text. */
  known: ReadonlySet<number>;
  /** Id of the tooltip element the chips describe. */
  tooltipId: string;
  /**
   * Verification results for exactly this text: chips learn their claim
   * (data-claim) and partial, unsupported and uncited claims are marked.
   */
  claims?: readonly ClaimResult[] | null;
  /** Prefix of the marked claims' element ids ("<prefix>-<claim index>"). */
  claimIdPrefix?: string;
  /** Id of the tooltip element the marked claims describe. */
  claimTooltipId?: string;
}

/** Markdown → React nodes with citation chips. */
export function renderAnswer(markdown: string, options: ChipOptions): ReactNode[] {
  const markers = protectMarkers(markdown, options.known, options.claims ?? []);
  const ctx: Context = { ...options, markers, open: -1, started: new Set() };
  try {
    return blocks(new Lexer({ gfm: true, breaks: false }).lex(markers.text), ctx, true);
  } catch {
    // The lexer gave up on this text: show it as written rather than nothing.
    ctx.open = -1;
    return [rawBlock(markers.text, 0, ctx)];
  }
}

/**
 * Known markers are swapped for a private bracket pair before lexing, so
 * Markdown cannot swallow one: "[#1](https://…)" stays a chip followed by
 * text instead of becoming a link, and "[#1]: …" is not a reference
 * definition. The pair is one the text does not contain. A marker inside a
 * verified claim carries the claim's index ("⟦1.3⟧").
 *
 * Flagged claims are bracketed the same way, by one private-use character
 * each side (CLAIM_OPEN + claim index, CLAIM_CLOSE), set inside the claim's
 * block syntax (after "- ", "1. ", "| ", before trailing blanks) so the
 * Markdown structure is unchanged; the inline renderer wraps the text
 * between them. Text that already holds such characters is not marked.
 */
interface Markers {
  text: string;
  /** Finds markers in lexed text; group 1 is the number, group 2 the claim index. */
  pattern: RegExp;
  /** Puts the written form back, for code and attribute values. */
  restore(text: string): string;
  /** Whether flagged claims were bracketed (their private marks are to be read). */
  claimMarks: boolean;
}

const BRACKET_PAIRS = [
  ['\u27E6', '\u27E7'],
  ['\u27EA', '\u27EB'],
  ['\u2983', '\u2984'],
  ['\u2985', '\u2986'],
  ['\u2987', '\u2988'],
];

const CLAIM_OPEN = 0xe000;
const CLAIM_MAX = 0x0fff;
const CLAIM_CLOSE = '\uf8ff';
const CLAIM_SENTINELS = /[\ue000-\uefff\uf8ff]/g;
const LEADING_SYNTAX = /^(?:\s+|[-*+]\s+|\d{1,9}[.)]\s+|#{1,6}\s+|>\s?|\|\s*)*/;
const TRAILING_SYNTAX = /(?:\s|\|)*$/;

function protectMarkers(markdown: string, known: ReadonlySet<number>, claims: readonly ClaimResult[]): Markers {
  const pair = BRACKET_PAIRS.find(([open, close]) => !markdown.includes(open!) && !markdown.includes(close!));
  if (!pair) {
    // Every pair occurs in the text (never in practice): markers are still
    // found in text nodes, only without the protection.
    return { text: markdown, pattern: new RegExp(`${MARKER_SOURCE}()`, 'g'), restore: (t) => t, claimMarks: false };
  }
  const [open, close] = pair as [string, string];
  const owners = claims.length > 0 ? markerClaims(markdown, claims) : new Map<number, number>();
  const inserts = new Map<number, string>();
  const claimMarks = claims.length > 0 && claims.length <= CLAIM_MAX && !/[\ue000-\uefff\uf8ff]/.test(markdown);
  if (claimMarks) {
    for (const r of claimRanges(markdown, claims)) {
      if (!isFlagged(claims[r.claim]!.verdict)) continue;
      const text = markdown.slice(r.start, r.end);
      const start = r.start + (LEADING_SYNTAX.exec(text)?.[0].length ?? 0);
      const end = r.start + text.replace(TRAILING_SYNTAX, '').length;
      if (start >= end) continue;
      inserts.set(start, (inserts.get(start) ?? '') + String.fromCharCode(CLAIM_OPEN + r.claim));
      inserts.set(end, CLAIM_CLOSE + (inserts.get(end) ?? ''));
    }
  }
  let text = '';
  let last = 0;
  const upTo = (to: number) => {
    for (let i = last; i < to; i++) text += (inserts.get(i) ?? '') + markdown[i];
    last = to;
  };
  for (const m of markdown.matchAll(new RegExp(MARKER_SOURCE, 'g'))) {
    const n = Number(m[1]);
    if (!known.has(n)) continue;
    upTo(m.index);
    const owner = owners.get(m.index) ?? -1;
    text += (inserts.get(m.index) ?? '') + `${open}${n}${owner >= 0 ? `.${owner}` : ''}${close}`;
    last = m.index + m[0].length;
  }
  upTo(markdown.length);
  text += inserts.get(markdown.length) ?? '';
  const pattern = new RegExp(`${open}(\\d{1,3})(?:\\.(\\d+))?${close}`, 'g');
  return {
    text,
    pattern,
    restore: (t) => {
      const written = t.replace(new RegExp(pattern.source, 'g'), '[#$1]');
      return claimMarks ? written.replace(CLAIM_SENTINELS, '') : written;
    },
    claimMarks,
  };
}

interface Context extends ChipOptions {
  markers: Markers;
  /** Index of the flagged claim the text being rendered is in; -1 outside. */
  open: number;
  /** Flagged claims whose first piece was rendered (it carries the id and focus). */
  started: Set<number>;
}

function blocks(tokens: readonly Token[], ctx: Context, top = false): ReactNode[] {
  return tokens
    .map((token, i) => {
      const node = block(token, i, ctx);
      // A claim never spans top-level blocks; a lost closing mark cannot leak on.
      if (top) ctx.open = -1;
      return node;
    })
    .filter((node) => node !== null);
}

function block(token: Token, key: number, ctx: Context): ReactNode {
  const t = token as Tokens.Generic;
  switch (token.type) {
    case 'space':
      return null;
    case 'paragraph':
      return <p key={key}>{inline((t as Tokens.Paragraph).tokens, ctx)}</p>;
    case 'heading': {
      const h = t as Tokens.Heading;
      const Tag = `h${Math.min(Math.max(h.depth, 1), 6)}` as 'h1';
      return <Tag key={key}>{inline(h.tokens, ctx)}</Tag>;
    }
    case 'code':
      return (
        <pre key={key}>
          <code>{ctx.markers.restore((t as Tokens.Code).text)}</code>
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{blocks((t as Tokens.Blockquote).tokens, ctx)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'list':
      return list(t as Tokens.List, key, ctx);
    case 'table':
      return table(t as Tokens.Table, key, ctx);
    case 'text': {
      // A tight list item's text: inline content without a paragraph.
      const text = t as Tokens.Text;
      return text.tokens ? <Fragment key={key}>{inline(text.tokens, ctx)}</Fragment> : rawBlock(text.raw, key, ctx);
    }
    default:
      // Raw HTML blocks, reference definitions and anything unknown: as written.
      return rawBlock(t.raw, key, ctx);
  }
}

function rawBlock(raw: string, key: number, ctx: Context): ReactNode {
  const text = raw.replace(/\n+$/, '');
  return text === '' ? null : (
    <p key={key} className="raw">
      {withChips(text, ctx)}
    </p>
  );
}

function list(token: Tokens.List, key: number, ctx: Context): ReactNode {
  const items = token.items.map((item, i) => <li key={i}>{blocks(item.tokens, ctx)}</li>);
  if (!token.ordered) return <ul key={key}>{items}</ul>;
  const start = typeof token.start === 'number' && token.start !== 1 ? token.start : undefined;
  return (
    <ol key={key} start={start}>
      {items}
    </ol>
  );
}

function table(token: Tokens.Table, key: number, ctx: Context): ReactNode {
  const cell = (c: Tokens.TableCell, i: number) => {
    const Tag = c.header ? 'th' : 'td';
    return (
      <Tag key={i} className={c.align ? `align-${c.align}` : undefined}>
        {inline(c.tokens, ctx)}
      </Tag>
    );
  };
  return (
    <table key={key}>
      <thead>
        <tr>{token.header.map(cell)}</tr>
      </thead>
      {token.rows.length > 0 && (
        <tbody>
          {token.rows.map((row, i) => (
            <tr key={i}>{row.map(cell)}</tr>
          ))}
        </tbody>
      )}
    </table>
  );
}

/**
 * Inline tokens → nodes. Runs of text (including raw HTML, shown as typed)
 * are joined before markers are looked for, so a marker split across
 * tokens is still found.
 */
function inline(tokens: readonly Token[], ctx: Context): ReactNode[] {
  const out: ReactNode[] = [];
  let run = '';
  const flush = () => {
    if (run !== '') out.push(...withChips(run, ctx, out.length));
    run = '';
  };
  const element = (make: (key: number) => ReactNode) => {
    flush();
    out.push(make(out.length));
  };
  for (const token of tokens) {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'text': {
        const text = t as Tokens.Text;
        if (text.tokens) element((k) => <Fragment key={k}>{inline(text.tokens!, ctx)}</Fragment>);
        else run += text.raw;
        break;
      }
      case 'escape':
        run += (t as Tokens.Escape).text;
        break;
      case 'checkbox':
        run += t.raw; // "[ ] " / "[x] " as written
        break;
      case 'strong':
        element((k) => <strong key={k}>{inline((t as Tokens.Strong).tokens, ctx)}</strong>);
        break;
      case 'em':
        element((k) => <em key={k}>{inline((t as Tokens.Em).tokens, ctx)}</em>);
        break;
      case 'del':
        element((k) => <del key={k}>{inline((t as Tokens.Del).tokens, ctx)}</del>);
        break;
      case 'codespan':
        element((k) => <code key={k}>{ctx.markers.restore((t as Tokens.Codespan).text)}</code>);
        break;
      case 'br':
        element((k) => <br key={k} />);
        break;
      case 'link': {
        const link = t as Tokens.Link;
        const href = webLink(ctx.markers.restore(link.href));
        if (href === null) {
          run += link.raw; // not a web address: shown as written, never a link
        } else {
          element((k) => (
            <a key={k} href={href} title={link.title ? ctx.markers.restore(link.title) : undefined} rel="noopener noreferrer" target="_blank">
              {inline(link.tokens, ctx)}
            </a>
          ));
        }
        break;
      }
      default:
        // Raw HTML, images and anything unknown: the characters written.
        run += t.raw;
    }
  }
  flush();
  return out;
}

/**
 * Splits text at validated markers into text and chip buttons, and wraps
 * the text of a flagged claim (between its private marks) in a marked span.
 */
function withChips(text: string, ctx: Context, firstKey = 0): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let key = firstKey;
  const plain = (piece: string) => {
    const shown = ctx.markers.restore(piece);
    if (shown === '') return;
    out.push(ctx.open >= 0 ? flaggedPiece(shown, ctx, key++) : shown);
  };
  const split = new RegExp(
    ctx.markers.claimMarks ? `${ctx.markers.pattern.source}|${CLAIM_SENTINELS.source}` : ctx.markers.pattern.source,
    'g',
  );
  for (const m of text.matchAll(split)) {
    if (m.index > last) plain(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] === undefined) {
      const code = m[0].charCodeAt(0);
      ctx.open = m[0] === CLAIM_CLOSE ? -1 : code - CLAIM_OPEN;
      continue;
    }
    const n = Number(m[1]);
    if (!ctx.known.has(n)) {
      plain(m[0]);
      continue;
    }
    out.push(chip(n, ctx.tooltipId, key++, m[2] ? Number(m[2]) : undefined));
  }
  if (last < text.length) plain(text.slice(last));
  return out;
}

/** Text of a partial, unsupported or uncited claim; its first piece is focusable and names its tooltip. */
function flaggedPiece(text: string, ctx: Context, key: number): ReactNode {
  const i = ctx.open;
  const verdict = ctx.claims?.[i]?.verdict ?? '';
  const first = !ctx.started.has(i);
  ctx.started.add(i);
  return (
    <span
      key={`claim-${key}`}
      className={`claim-flag claim-${verdict}`}
      data-claim={i}
      data-verdict={verdict}
      id={first && ctx.claimIdPrefix ? `${ctx.claimIdPrefix}-${i}` : undefined}
      tabIndex={first ? 0 : undefined}
      aria-describedby={first ? ctx.claimTooltipId : undefined}
    >
      {text}
    </span>
  );
}

function chip(n: number, tooltipId: string, key: number, claim?: number): ReactNode {
  return (
    <button
      key={`cite-${key}`}
      type="button"
      className="cite"
      data-n={n}
      data-claim={claim}
      aria-describedby={tooltipId}
      aria-label={`Citation ${n}`}
    >
      {n}
    </button>
  );
}
