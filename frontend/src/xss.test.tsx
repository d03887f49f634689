// XSS corpus: every payload goes through the two places untrusted text is
// shown — model output (Markdown, sanitised) and document text in the
// source viewer (plain text) — and must come out inert.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openExternal } from './api';
import { AnswerBody } from './components/AnswerBody';
import { FileStatusList } from './components/FileStatusList';
import { SourceViewer } from './components/SourceViewer';
import { renderAnswerElement, renderHtml as renderSafeHtml } from './testing/renderMarkdown';
import { citation, installFakeBridge, removeFakeBridge, type FakeBridge } from './testing/fixtures';

export const XSS_PAYLOADS: string[] = [
  '<script>window.__pwned=1</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<scr<script>ipt>window.__pwned=1</scr</script>ipt>',
  '<img src=x onerror=window.__pwned=1>',
  '<IMG SRC="javascript:window.__pwned=1">',
  '<svg onload=window.__pwned=1>',
  '<svg><script>window.__pwned=1</script></svg>',
  '<svg><a xlink:href="javascript:window.__pwned=1"><text>x</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=1>',
  '<iframe src="javascript:window.__pwned=1"></iframe>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '<object data="javascript:window.__pwned=1"></object>',
  '<embed src="javascript:window.__pwned=1">',
  '<body onload=window.__pwned=1>',
  '<div onmouseover="window.__pwned=1">hover</div>',
  '<details open ontoggle=window.__pwned=1>',
  '<a href="javascript:window.__pwned=1">click</a>',
  '<a href="JaVaScRiPt:window.__pwned=1">click</a>',
  '<a href="&#106;avascript:window.__pwned=1">entity</a>',
  '<a href="jav&#x09;ascript:window.__pwned=1">tab</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>',
  '<a href="vbscript:msgbox(1)">vb</a>',
  '[md link](javascript:window.__pwned=1)',
  '[md entity](&#x6A;avascript:window.__pwned=1)',
  '[md data](data:text/html,<script>window.__pwned=1</script>)',
  '![md img](x" onerror="window.__pwned=1)',
  '![md img js](javascript:window.__pwned=1)',
  '<style>body{background:url("javascript:window.__pwned=1")}</style>',
  '<p style="background:url(javascript:window.__pwned=1)">styled</p>',
  '<link rel=stylesheet href="javascript:window.__pwned=1">',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=1">',
  '<base href="javascript:window.__pwned=1//">',
  '<form action="javascript:window.__pwned=1"><button>go</button></form>',
  '<input autofocus onfocus=window.__pwned=1>',
  '<video><source onerror="window.__pwned=1"></video>',
  '<marquee onstart=window.__pwned=1>',
  '&lt;script&gt;window.__pwned=1&lt;/script&gt;',
  '<!--<img src="--><img src=x onerror=window.__pwned=1//">',
  '`<script>` in code is text: ```\n<script>window.__pwned=1</script>\n```',
  '<noscript><p title="</noscript><img src=x onerror=window.__pwned=1>">',
  '<template><script>window.__pwned=1</script></template>',
  '"><script>window.__pwned=1</script>',
  "'';!--\"<XSS>=&{()}",
  '<a href="https://example.com" onclick="window.__pwned=1">ok link</a> [#1]',
];

const DANGEROUS_TAGS = 'script, iframe, object, embed, img, svg, math, style, link, meta, base, form, input, video, source, template, body';

function assertInert(root: ParentNode): void {
  expect(root.querySelector(DANGEROUS_TAGS)).toBeNull();
  for (const el of root.querySelectorAll('*')) {
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name).not.toMatch(/^on/i);
      expect(attr.name).not.toBe('style');
      expect(attr.name).not.toBe('srcdoc');
      if (['href', 'src', 'action', 'xlink:href', 'data', 'formaction'].includes(attr.name)) {
        expect(attr.value.replace(/[\s\u0000-\u001f]/g, '')).not.toMatch(/^(javascript|vbscript|data):/i);
      }
    }
  }
}

describe('XSS corpus', () => {
  it('has at least 30 payloads', () => {
    expect(XSS_PAYLOADS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(XSS_PAYLOADS)('model output is inert: %s', (payload) => {
    (window as unknown as { __pwned?: number }).__pwned = undefined;
    const div = renderAnswerElement(payload, { known: new Set([1]), tooltipId: 'tip' });
    document.body.append(div);
    assertInert(div);
    const html = document.createElement('div');
    html.innerHTML = renderSafeHtml(payload);
    assertInert(html);
    div.remove();
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  describe('document text in the source viewer', () => {
    let bridge: FakeBridge;
    beforeEach(() => {
      bridge = installFakeBridge();
      Element.prototype.scrollIntoView = vi.fn();
    });
    afterEach(() => {
      cleanup();
      removeFakeBridge();
    });

    it('shows every payload as literal text', async () => {
      const text = 'Passage start.\n\n' + XSS_PAYLOADS.join('\n\n') + '\n';
      bridge.app.OpenDocument.mockImplementation(async (id: string) => ({
        doc_id: id, title: '<img src=x onerror=window.__pwned=1>', path: '/docs/evil.md', format: 'md', rev: 'r1',
        chunks: 1, indexed_at: '2026-01-01T00:00:00Z', text, chars: Array.from(text).length,
      }));
      const cited = 'Passage start.';
      const c = citation(1, { doc_id: 'evil', rev: 'r1', offsets: { start: 0, end: cited.length, unit: 'char' }, text: cited });
      render(<SourceViewer citations={[c]} index={0} onIndex={() => {}} onClose={() => {}} />);
      const shown = await screen.findByTestId('source-text');
      expect(shown.textContent).toBe(text);
      assertInert(document.body);
      expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
    });
  });

  describe('document titles, file names and passages', () => {
    afterEach(cleanup);
    const hostile = XSS_PAYLOADS.slice(0, 12);

    it('are shown as literal text in the citation tooltip', () => {
      for (const [i, payload] of hostile.entries()) {
        const c = citation(1, { title: payload, path: `/docs/${payload}.md`, text: `passage ${payload}` });
        render(<AnswerBody text="claim [#1]" citations={[c]} idPrefix={`x${i}`} streaming={false} />);
        fireEvent.mouseOver(screen.getByRole('button', { name: 'Citation 1' }));
        const tip = screen.getByTestId('citation-tooltip');
        expect(tip.textContent).toContain(payload);
        expect(tip.textContent).toContain(`/docs/${payload}.md`);
        assertInert(document.body);
        cleanup();
      }
    });

    it('are shown as literal text in the file list', () => {
      const files = hostile.map((payload, i) => ({
        path: `/docs/${i}-${payload}.md`,
        status: i % 2 ? ('failed' as const) : ('indexed' as const),
        title: i % 2 ? undefined : payload,
        reason: i % 2 ? `cannot read ${payload}` : undefined,
        chunks: 1,
      }));
      render(<FileStatusList files={files} />);
      const list = screen.getByTestId('file-list');
      for (const [i, payload] of hostile.entries()) {
        expect(list.textContent).toContain(i % 2 ? `cannot read ${payload}` : payload);
      }
      // The windowed list positions rows with its own style properties; nothing else may carry markup.
      for (const el of document.body.querySelectorAll<HTMLElement>('[style]')) {
        expect(el.getAttribute('style')).toMatch(/^((top|height): \d+px;\s*)+$/);
        el.removeAttribute('style');
      }
      assertInert(document.body);
    });
  });

  describe('external links', () => {
    afterEach(() => {
      removeFakeBridge();
    });

    it('opens only http(s) URLs, and only when asked', async () => {
      // Links open through the Go binding, which checks the address again.
      const open = installFakeBridge().app.OpenLink.mockResolvedValue(undefined);
      // Rendering an answer never opens anything by itself.
      renderAnswerElement('[site](https://example.com) <a href="http://example.org">x</a>', { known: new Set(), tooltipId: 't' });
      expect(open).not.toHaveBeenCalled();
      for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', ' javascript:x', 'ftp://example.com']) {
        await expect(openExternal(bad)).rejects.toThrow(/only absolute http/);
      }
      expect(open).not.toHaveBeenCalled();
      await openExternal('https://example.com/a');
      await openExternal('http://example.org');
      expect(open.mock.calls).toEqual([['https://example.com/a'], ['http://example.org']]);
    });
  });
});
