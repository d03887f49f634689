import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { errorMessage } from '../api';
import { linkHost } from '../links';

interface Props {
  url: string;
  onCancel(): void;
  /** Opens the link; a rejection is shown in the dialog. */
  onOpen(): Promise<void>;
}

const FOCUSABLE = 'button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * Asks before a link from an answer leaves the app: the full address and the
 * host it really goes to are shown. Enter opens, Escape cancels, and Tab
 * stays inside the dialog; focus returns to the link afterwards.
 */
export function LinkConfirm({ url, onCancel, onOpen }: Props) {
  const dialog = useRef<HTMLDivElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const descId = useId();
  const host = linkHost(url);

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    openButton.current?.focus();
    return () => previous?.focus();
  }, []);

  const open = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await onOpen();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      e.stopPropagation();
      // A held key (e.g. the Enter that activated the link) must not confirm.
      if (e.repeat) return;
      if (e.target instanceof HTMLElement && e.target.dataset.action === 'cancel') onCancel();
      else void open();
    } else if (e.key === 'Tab') {
      const items = Array.from(dialog.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? []);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) return;
      const at = items.indexOf(document.activeElement as HTMLElement);
      if (e.shiftKey && at <= 0) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === -1 || at === items.length - 1)) {
        e.preventDefault();
        first.focus();
      }
    }
  };

  return createPortal(
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div
        ref={dialog}
        className="dialog link-confirm"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={descId}
        data-testid="link-confirm"
        onKeyDown={onKeyDown}
      >
        <header className="dialog-head">
          <h2 id={titleId}>Open this link in your browser?</h2>
        </header>
        <div className="link-confirm-body">
          <p id={descId}>
            The answer links to the address below. Links in answers come from your documents or the model, so check
            that it is one you expect: anything in it is sent to that site.
          </p>
          <p className="link-url" data-testid="link-url">
            {url}
          </p>
          {host && (
            <p className="muted">
              Site: <strong data-testid="link-host">{host}</strong>
            </p>
          )}
          {error && (
            <p className="answer-error" role="alert" data-testid="link-error">
              {error}
            </p>
          )}
        </div>
        <div className="dialog-foot">
          <button type="button" data-action="cancel" onClick={onCancel} data-testid="link-cancel">
            Cancel
          </button>
          <button
            ref={openButton}
            type="button"
            className="primary"
            onClick={() => void open()}
            disabled={busy}
            data-testid="link-open"
          >
            Open in browser
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}
