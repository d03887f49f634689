// Model output renders exactly as written: public XSS payloads and the
// classes below go through the answer view, and what the reader sees must be
// the stored text (Markdown syntax aside), as text, with every validated
// citation as a chip and only absolute http(s) links.
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerBody } from './components/AnswerBody';
import { citation } from './testing/fixtures';
import polyglots from './testdata/xss/XSS_Polyglots.txt?raw';
import rsnake from './testdata/xss/RSNAKE_XSS.txt?raw';
import quick from './testdata/xss/xss_payloads_quick.txt?raw';

/** Hand-written payload classes the public lists miss or that broke the old renderer. */
const CLASSES: Array<[string, string]> = [
  ['script element', '<script>window.__pwned=1</script>'],
  ['script end tag with a space', 'before </script > after'],
  ['unterminated script end tag', 'tail </script and then more words'],
  ['event handler attribute', '<div onclick="window.__pwned=1">hi</div>'],
  ['img onerror', '<img src=x onerror=window.__pwned=1>'],
  ['svg onload', '<svg onload=window.__pwned=1>'],
  ['html after an inline code tag', 'Use <code>x</code> then <b onclick=alert(1)>bold</b> <img src=x onerror=alert(1)>'],
  ['html after a kbd tag', 'Press <kbd>Ctrl</kbd> <script>alert(1)</script> <i>it</i>'],
  ['html after a pre tag', 'see <pre><em>x</em></pre> here'],
  ['script end tag after an open code tag', 'Run <code>make </script and the rest stays [#1] visible'],
  ['unterminated img after an open kbd tag', 'Press <kbd>Ctrl <img src=x onerror=window.__pwned=1 and more'],
  ['markup after an open script tag', '<script>x</script >y <b>bold</b> <img src=x onerror=window.__pwned=1//'],
  ['html comment', 'visible <!-- hidden words --> still visible'],
  ['comment breaking out of an attribute', '<!--<img src="--><img src=x onerror=alert(1)//">'],
  ['unterminated tag', 'text <img src=x onerror=alert(1) and more'],
  ['unterminated comment', 'text <!-- never closed'],
  ['escaped entities', '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['numeric entities', '&#60;img src=x onerror=alert(1)&#62; and &#x3C;b&#x3E;'],
  ['javascript: Markdown link', '[click](javascript:window.__pwned=1)'],
  ['entity-encoded javascript: link', '[e](&#x6A;avascript:alert(1))'],
  ['data: link', '[data](data:text/html;base64,PHNjcmlwdD4=)'],
  ['file: link', '[passwd](file:///etc/passwd)'],
  ['relative link', '[one](1)'],
  ['root-relative link', '[root](/etc/passwd)'],
  ['protocol-relative link', '[pr](//evil.example/x)'],
  ['link with credentials', '[bank](https://bank.example@evil.example/)'],
  ['raw html relative link', '<a href="1">one</a>'],
  ['Markdown image with handler', '![img](x" onerror="alert(1))'],
  ['Markdown image javascript:', '![img](javascript:alert(1))'],
  ['reference definition', '[r]: javascript:alert(1)\n\n[go][r] and [r]'],
  ['reference definition to the web', '[w]: https://example.com/ref "ref title"\n\nsee [w]'],
  ['citation written as a link', '[#1](https://evil.example/)'],
  ['citation forged with html', '<button class="cite" data-n="2">2</button>'],
  ['link title', '[site](https://example.com "a <b>title</b>")'],
  ['autolinks', '<https://example.com/path> and https://example.org/x'],
  ['mail autolinks', 'write to me@example.com or <mailto:me@example.com>'],
  ['style element', '<style>body{display:none}</style>'],
  ['iframe srcdoc', '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>'],
  ['html block', '<div>\n<script>alert(1)</script>\n</div>'],
  ['task list', '- [ ] open\n- [x] done'],
];

function lines(list: string): string[] {
  return list.split('\n').filter((l) => l.trim() !== '');
}

const PUBLIC: Array<[string, string]> = [
  ...lines(quick).map((p, i): [string, string] => [`quick #${i + 1}`, p]),
  ...lines(polyglots).map((p, i): [string, string] => [`polyglot #${i + 1}`, p]),
  ...lines(rsnake).map((p, i): [string, string] => [`rsnake #${i + 1}`, p]),
];

/** Answer shapes a payload is placed in; each cites [#1] and [#2] outside code. */
const SHAPES: Array<[string, (p: string) => string]> = [
  ['inline', (p) => `Footnote installs with apt [#1]. ${p} It runs offline [#2].`],
  ['after code tag', (p) => `Use <code>apt</code> first [#1], then ${p} and finally [#2].`],
  ['quote and list', (p) => `> ${p} [#1]\n\n- **still here** [#2]`],
  ['own paragraph', (p) => `Intro [#1]\n\n${p}\n\nOutro [#2]`],
  ['after an open kbd tag', (p) => `Press <kbd>Ctrl [#1] and ${p} then [#2].`],
];

const CASES = [...CLASSES, ...PUBLIC].flatMap(([name, payload]) =>
  SHAPES.map(([shape, make]): [string, string] => [`${name} (${shape})`, make(payload)]),
);

const KNOWN = [1, 2];

// Elements the renderer may produce, and the attributes each may carry.
const ALLOWED: Record<string, readonly string[]> = {
  P: ['class'], H1: [], H2: [], H3: [], H4: [], H5: [], H6: [], BLOCKQUOTE: [], HR: [], BR: [],
  UL: [], OL: ['start'], LI: [], PRE: [], CODE: [], STRONG: [], EM: [], DEL: [],
  TABLE: [], THEAD: [], TBODY: [], TR: [], TH: ['class'], TD: ['class'],
  A: ['href', 'title', 'rel', 'target'],
  BUTTON: ['type', 'class', 'data-n', 'aria-describedby', 'aria-label'],
  SPAN: ['class'],
};

function renderAnswer(text: string): HTMLElement {
  const { getByTestId } = render(
    <AnswerBody text={text} citations={KNOWN.map((n) => citation(n))} idPrefix="t" streaming={false} />,
  );
  return getByTestId('answer-body');
}

/**
 * What a reader sees: chips read as their markers; an inline link reads with
 * the address and title written after its text (a reference link's address
 * stands in its definition, which shows as written).
 */
function visibleText(root: HTMLElement, source: string): string {
  const copy = root.cloneNode(true) as HTMLElement;
  for (const chip of copy.querySelectorAll<HTMLElement>('button.cite')) {
    chip.replaceWith(`[#${chip.dataset.n}]`);
  }
  for (const a of copy.querySelectorAll('a')) {
    const href = a.getAttribute('href') ?? '';
    if (a.textContent === href || !source.includes(`](${href}`)) continue;
    a.append(` ${href}`);
    const title = a.getAttribute('title');
    if (title) a.append(` "${title}"`);
  }
  return copy.textContent ?? '';
}

/** Drops what Markdown legitimately turns into structure: block markers, emphasis, code and link punctuation. */
function squashSource(markdown: string): string {
  return squash(markdown.replace(/^[ \t]*((>|[-+*]|#{1,6})[ \t]+)+/gm, '').replace(/^[ \t]*>/gm, ''));
}

function squash(text: string): string {
  return text.replace(/<(https?:\/\/[^\s<>]*)>/gi, '$1').replace(/[\s*_~`\\[\]()]/g, '');
}

function markerCount(text: string): number {
  return [...text.matchAll(/\[#(\d{1,3})\]/g)].filter((m) => KNOWN.includes(Number(m[1]))).length;
}

function isAbsoluteWebURL(href: string): boolean {
  if (!/^https?:\/\/[^/]/i.test(href)) return false;
  const url = new URL(href);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
}

describe('answer rendering against XSS payloads', () => {
  afterEach(cleanup);

  it('covers the public lists and the hand-written classes', () => {
    expect(PUBLIC.length).toBeGreaterThan(100);
    expect(CASES.length).toBe((CLASSES.length + PUBLIC.length) * SHAPES.length);
  });

  it.each(CASES)('%s', (_name, answer) => {
    (window as unknown as { __pwned?: number }).__pwned = undefined;
    const body = renderAnswer(answer);

    for (const el of body.querySelectorAll('*')) {
      const allowed = ALLOWED[el.tagName];
      expect(allowed, `unexpected <${el.tagName.toLowerCase()}>`).toBeDefined();
      for (const attr of Array.from(el.attributes)) {
        expect(attr.name).not.toMatch(/^on/i);
        expect(allowed, `unexpected ${attr.name} on <${el.tagName.toLowerCase()}>`).toContain(attr.name);
      }
    }
    for (const button of body.querySelectorAll('button')) {
      expect(button.className).toBe('cite');
    }
    for (const a of body.querySelectorAll('a')) {
      const href = a.getAttribute('href') ?? '';
      expect(isAbsoluteWebURL(href), `link to ${JSON.stringify(href)}`).toBe(true);
    }

    // Every validated marker outside code is a chip; markers inside code stay code.
    const inCode = Array.from(body.querySelectorAll('code')).reduce((sum, c) => sum + markerCount(c.textContent ?? ''), 0);
    expect(body.querySelectorAll('button.cite')).toHaveLength(markerCount(answer) - inCode);
    expect(body.querySelectorAll('button.cite').length).toBeGreaterThanOrEqual(1);

    // Nothing the model wrote disappears or changes.
    expect(squash(visibleText(body, answer))).toBe(squashSource(answer));
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });
});
