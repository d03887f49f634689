// Renders model output as React elements built from a Markdown syntax tree
// (marked's lexer only; its HTML renderer is never used). Nothing the model
// wrote is parsed as HTML or put into innerHTML: raw HTML, images, reference
// definitions and links that are not absolute http(s) show as the characters
// written, so nothing disappears; validated [#n] markers become citation
// chips wherever they stand outside code.
import { Lexer, type Token, type Tokens } from 'marked';
import { Fragment, type ReactNode } from 'react';
import { MARKER_SOURCE } from './citations';
import { webLink } from './links';

export interface ChipOptions {
  /** Citation numbers that exist for this answer; other markers stay text. */
  known: ReadonlySet<number>;
  /** Id of the tooltip element the chips describe. */
  tooltipId: string;
}

/** Markdown → React nodes with citation chips. */
export function renderAnswer(markdown: string, options: ChipOptions): ReactNode[] {
  const markers = protectMarkers(markdown, options.known);
  const ctx = { ...options, markers };
  try {
    return blocks(new Lexer({ gfm: true, breaks: false }).lex(markers.text), ctx);
  } catch {
    // The lexer gave up on this text: show it as written rather than nothing.
    return [rawBlock(markers.text, 0, ctx)];
  }
}

/**
 * Known markers are swapped for a private bracket pair before lexing, so
 * Markdown cannot swallow one: "[#1](https://…)" stays a chip followed by
 * text instead of becoming a link, and "[#1]: …" is not a reference
 * definition. The pair is one the text does not contain.
 */
interface Markers {
  text: string;
  /** Finds markers in lexed text; group 1 is the number. */
  pattern: RegExp;
  /** Puts the written form back, for code and attribute values. */
  restore(text: string): string;
}

const BRACKET_PAIRS = [
  ['\u27E6', '\u27E7'],
  ['\u27EA', '\u27EB'],
  ['\u2983', '\u2984'],
  ['\u2985', '\u2986'],
  ['\u2987', '\u2988'],
];

function protectMarkers(markdown: string, known: ReadonlySet<number>): Markers {
  const pair = BRACKET_PAIRS.find(([open, close]) => !markdown.includes(open!) && !markdown.includes(close!));
  if (!pair) {
    // Every pair occurs in the text (never in practice): markers are still
    // found in text nodes, only without the protection.
    return { text: markdown, pattern: new RegExp(MARKER_SOURCE, 'g'), restore: (t) => t };
  }
  const [open, close] = pair as [string, string];
  const text = markdown.replace(new RegExp(MARKER_SOURCE, 'g'), (marker, n: string) =>
    known.has(Number(n)) ? `${open}${n}${close}` : marker,
  );
  const pattern = new RegExp(`${open}(\\d{1,3})${close}`, 'g');
  return { text, pattern, restore: (t) => t.replace(new RegExp(pattern.source, 'g'), '[#$1]') };
}

interface Context extends ChipOptions {
  markers: Markers;
}

function blocks(tokens: readonly Token[], ctx: Context): ReactNode[] {
  return tokens.map((token, i) => block(token, i, ctx)).filter((node) => node !== null);
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

/** Splits text at validated markers into text and chip buttons. */
function withChips(text: string, ctx: Context, firstKey = 0): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let key = firstKey;
  for (const m of text.matchAll(new RegExp(ctx.markers.pattern.source, 'g'))) {
    const n = Number(m[1]);
    if (!ctx.known.has(n)) continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(chip(n, ctx.tooltipId, key++));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out.map((node) => (typeof node === 'string' ? ctx.markers.restore(node) : node));
}

function chip(n: number, tooltipId: string, key: number): ReactNode {
  return (
    <button key={`cite-${key}`} type="button" className="cite" data-n={n} aria-describedby={tooltipId} aria-label={`Citation ${n}`}>
      {n}
    </button>
  );
}
