import { Fragment, useMemo, type ReactNode, type RefObject } from 'react';
import { tableBlocks, type Range } from '../sourcetable';

interface Props {
  /** The document's stored text, as code points (citation offsets count them). */
  points: readonly string[];
  /** The cited passage, highlighted faintly when support is set. */
  passage: Range;
  /** The supporting sentence(s) inside the passage, highlighted strongly. */
  support: Range | null;
  markRef: RefObject<HTMLElement | null>;
  strongRef: RefObject<HTMLElement | null>;
}

/**
 * A document's text with the cited passage highlighted, Markdown tables
 * shown as tables. A passage that spans table cells is highlighted cell by
 * cell; the first piece carries the ref the viewer scrolls to.
 */
export function SourceText({ points, passage, support, markRef, strongRef }: Props) {
  const blocks = useMemo(() => tableBlocks(points), [points]);
  const r = new Renderer(points, passage, support, markRef, strongRef);
  return (
    <div className="source-text" data-testid="source-text">
      {blocks.map((b) =>
        b.kind === 'text' ? (
          <Fragment key={b.start}>{r.range(b)}</Fragment>
        ) : (
          <table className="source-table" key={b.start} data-testid="source-table">
            <thead>
              <tr>
                {b.header.cells.map((c) => (
                  <th key={c.start}>{r.range(c)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.body.map((row) => (
                <tr key={row.cells[0]?.start ?? 0}>
                  {row.cells.map((c) => (
                    <td key={c.start}>{r.range(c)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        ),
      )}
    </div>
  );
}

/** Renders ranges of the text with the passage and support marks; remembers which mark came first. */
class Renderer {
  private firstMark = true;
  private firstStrong = true;
  constructor(
    private readonly points: readonly string[],
    private readonly passage: Range,
    private readonly support: Range | null,
    private readonly markRef: RefObject<HTMLElement | null>,
    private readonly strongRef: RefObject<HTMLElement | null>,
  ) {}

  private text(start: number, end: number): string {
    return end > start ? this.points.slice(start, end).join('') : '';
  }

  range({ start, end }: Range): ReactNode {
    const a = Math.max(start, this.passage.start);
    const b = Math.min(end, this.passage.end);
    if (a >= b) return this.text(start, end);
    const first = this.firstMark;
    this.firstMark = false;
    return (
      <>
        {this.text(start, a)}
        <mark
          ref={first ? this.markRef : undefined}
          className={this.support ? 'source-highlight faint' : 'source-highlight'}
          data-testid={first ? 'source-highlight' : undefined}
        >
          {this.strong(a, b)}
        </mark>
        {this.text(b, end)}
      </>
    );
  }

  private strong(start: number, end: number): ReactNode {
    if (!this.support) return this.text(start, end);
    const a = Math.max(start, this.support.start);
    const b = Math.min(end, this.support.end);
    if (a >= b) return this.text(start, end);
    const first = this.firstStrong;
    this.firstStrong = false;
    return (
      <>
        {this.text(start, a)}
        <mark ref={first ? this.strongRef : undefined} className="source-support" data-testid={first ? 'source-support' : undefined}>
          {this.text(a, b)}
        </mark>
        {this.text(b, end)}
      </>
    );
  }
}
