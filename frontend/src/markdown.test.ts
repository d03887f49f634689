import { describe, expect, it, vi } from 'vitest';
import { renderAnswerElement, renderHtml as renderSafeHtml } from './testing/renderMarkdown';

function render(markdown: string, known: number[] = []): HTMLDivElement {
  return renderAnswerElement(markdown, { known: new Set(known), tooltipId: 'tip' });
}

describe('sanitising model output', () => {
  const hostile = [
    'Hello <script>window.__pwned = 1</script> world',
    '<img src=x onerror="window.__pwned = 1">',
    '[click](javascript:window.__pwned=1)',
    '<a href="javascript:alert(1)">x</a>',
    '<iframe src="https://example.com"></iframe>',
    '<div onclick="alert(1)">hi</div>',
    '![img](x" onerror="alert(1))',
  ];

  it.each(hostile)('neutralises %s', (input) => {
    const div = render(input);
    expect(div.querySelector('script, img, iframe, [onerror], [onclick]')).toBeNull();
    for (const a of div.querySelectorAll('a')) {
      expect(a.getAttribute('href') ?? '').not.toMatch(/^\s*javascript:/i);
    }
    // Hostile text may remain visible as text; it must never become markup.
    for (const el of div.querySelectorAll('*')) {
      for (const attr of el.attributes) {
        expect(attr.name).not.toMatch(/^on/i);
        expect(attr.value).not.toMatch(/^\s*javascript:/i);
      }
    }
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('shows raw HTML from the model as text', () => {
    const div = render('before <b>bold</b> after');
    expect(div.querySelector('b')).toBeNull();
    expect(div.textContent).toContain('<b>bold</b>');
  });

  it('renders ordinary Markdown', () => {
    const html = renderSafeHtml('# Title\n\n- **one**\n- `two`\n\n[site](https://example.com)');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>one</strong>');
    expect(html).toContain('<code>two</code>');
    expect(html).toMatch(/<a href="https:\/\/example.com"[^>]*rel="noopener noreferrer"/);
  });
});

describe('Markdown structure', () => {
  it('renders tables, ordered and task lists, code blocks and headings from the syntax tree', () => {
    const errors = vi.spyOn(console, 'error');
    const div = render(
      '## Steps\n\n3. third [#1]\n4. fourth\n\n- [ ] open\n- [x] done\n\n| a | b |\n|:-:|--:|\n| `x` | **y** [#1] |\n\n```sh\necho [#1] <b>\n```',
      [1],
    );
    expect(div.querySelector('h2')?.textContent).toBe('Steps');
    expect(div.querySelector('ol')?.getAttribute('start')).toBe('3');
    expect(Array.from(div.querySelectorAll('ul li')).map((li) => li.textContent)).toEqual(['[ ] open', '[x] done']);
    expect(div.querySelector('input')).toBeNull();
    expect(div.querySelector('th')?.className).toBe('align-center');
    expect(div.querySelector('td + td')?.className).toBe('align-right');
    expect(div.querySelectorAll('td button.cite')).toHaveLength(1);
    expect(div.querySelector('pre code')?.textContent).toBe('echo [#1] <b>');
    expect(div.querySelectorAll('button.cite')).toHaveLength(2);
    expect(errors).not.toHaveBeenCalled();
  });
});

describe('citation chips', () => {
  it('turns only known [#n] markers into chips', () => {
    const div = render('Install with apt [#1]. See also [#5], [1] and [ #1 ] and vec![1] and [#1000].', [1, 2]);
    const chips = div.querySelectorAll('button.cite');
    expect(chips).toHaveLength(1);
    const chip = chips[0] as HTMLButtonElement;
    expect(chip.dataset.n).toBe('1');
    expect(chip.textContent).toBe('1');
    expect(chip.getAttribute('aria-describedby')).toBe('tip');
    expect(div.textContent).toContain('[#5], [1] and [ #1 ] and vec![1] and [#1000]');
  });

  it('places chips inside Markdown structure but not inside code', () => {
    const div = render('- **bold claim** [#2]\n\n`[#2]` stays code', [2]);
    expect(div.querySelector('li button.cite[data-n="2"]')).not.toBeNull();
    expect(div.querySelector('code')?.textContent).toBe('[#2]');
    expect(div.querySelectorAll('button.cite')).toHaveLength(1);
  });

  it('does not let the model forge chips with raw HTML', () => {
    const div = render('<button class="cite" data-n="1">1</button> real [#1]', [1]);
    expect(div.querySelectorAll('button')).toHaveLength(1);
  });
});
