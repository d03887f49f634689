// Renders model output as Markdown into a sanitised DOM fragment and turns
// known [#n] markers into citation chips. Model text is never trusted: raw
// HTML in it is shown as text, the generated HTML goes through DOMPurify, and
// chips are built with DOM calls on the already-sanitised tree.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { splitCitations } from './citations';

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML written by the model is displayed literally, not interpreted.
    html({ text }) {
      return escapeHtml(text);
    },
  },
});

let purifier: ReturnType<typeof DOMPurify> | undefined;

function sanitizer(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  // A private instance so its hooks cannot leak into other uses of DOMPurify.
  purifier = DOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node instanceof Element && node.tagName === 'A') {
      node.setAttribute('rel', 'noopener noreferrer');
      node.setAttribute('target', '_blank');
    }
  });
  return purifier;
}

const SANITIZE_CONFIG = {
  // Media and forms could fetch remote content or capture input; answers need neither.
  FORBID_TAGS: ['img', 'picture', 'video', 'audio', 'source', 'iframe', 'object', 'embed', 'form', 'input', 'button', 'textarea', 'select', 'style', 'svg', 'math'],
  FORBID_ATTR: ['style', 'id', 'class'],
  ALLOW_DATA_ATTR: false,
};

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Markdown → sanitised HTML string (no chips). Exported for tests and plain uses. */
export function renderSafeHtml(markdown: string): string {
  return sanitizer().sanitize(toHtml(markdown), SANITIZE_CONFIG);
}

function toHtml(markdown: string): string {
  return marked.parse(markdown) as string;
}

export interface ChipOptions {
  /** Citation numbers that exist for this answer; other markers stay text. */
  known: ReadonlySet<number>;
  /** Id of the tooltip element the chips describe. */
  tooltipId: string;
}

/** Markdown → sanitised fragment with citation chips, ready to append to the page. */
export function renderAnswer(markdown: string, options: ChipOptions): DocumentFragment {
  const fragment = sanitizer().sanitize(toHtml(markdown), {
    ...SANITIZE_CONFIG,
    RETURN_DOM_FRAGMENT: true,
  });
  insertChips(fragment, options);
  return fragment;
}

/** Replaces known markers in text nodes (outside code) with focusable chip buttons. */
function insertChips(root: DocumentFragment, { known, tooltipId }: ChipOptions): void {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const textNodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!(node.parentElement?.closest('code, pre'))) textNodes.push(node as Text);
  }
  for (const node of textNodes) {
    const parts = splitCitations(node.data, known);
    if (parts.length === 1 && parts[0]?.kind === 'text') continue;
    const replacement = doc.createDocumentFragment();
    for (const part of parts) {
      if (part.kind === 'text') {
        replacement.append(doc.createTextNode(part.text));
      } else {
        replacement.append(createChip(doc, part.n, tooltipId));
      }
    }
    node.replaceWith(replacement);
  }
}

function createChip(doc: Document, n: number, tooltipId: string): HTMLButtonElement {
  const chip = doc.createElement('button');
  chip.type = 'button';
  chip.className = 'cite';
  chip.dataset.n = String(n);
  chip.setAttribute('aria-describedby', tooltipId);
  chip.setAttribute('aria-label', `Citation ${n}`);
  chip.textContent = String(n);
  return chip;
}
