import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

const OVERSCAN = 8;
/** Rows rendered before the list has been measured (and in tests without layout). */
const INITIAL_ROWS = 40;

interface Props<T> {
  items: T[];
  /** Fixed row height in px, so only the visible rows need to exist. */
  rowHeight: number;
  rowKey: (item: T) => string;
  renderRow: (item: T) => ReactNode;
  rowTitle?: (item: T) => string;
  testId: string;
  label: string;
}

/** A list that renders only the rows in view, so thousands of entries stay smooth. */
export function WindowedList<T>({ items, rowHeight, rowKey, renderRow, rowTitle, testId, label }: Props<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 0 });

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView({ top: el.scrollTop, height: el.clientHeight });
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(el);
    return () => observer?.disconnect();
  }, []);

  const visible = view.height > 0 ? Math.ceil(view.height / rowHeight) : INITIAL_ROWS;
  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, first + visible + 2 * OVERSCAN);
  return (
    <div
      className="windowed-scroller"
      ref={scroller}
      onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
    >
      <ul
        className="windowed-list"
        data-testid={testId}
        data-total={items.length}
        aria-label={label}
        style={{ height: items.length * rowHeight }}
      >
        {items.slice(first, last).map((item, i) => (
          <li
            key={rowKey(item)}
            title={rowTitle?.(item)}
            style={{ top: (first + i) * rowHeight, height: rowHeight }}
          >
            {renderRow(item)}
          </li>
        ))}
      </ul>
    </div>
  );
}
