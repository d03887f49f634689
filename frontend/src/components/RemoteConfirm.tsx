import { useEffect, useRef, type KeyboardEvent } from 'react';

interface Props {
  /** The model server's address, as the backend names it. */
  server: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks before a model server on another machine is saved: every question then
 * sends passages from the user's documents there. Focus starts on Cancel, Tab
 * stays inside, Escape cancels.
 */
export function RemoteConfirm({ server, onConfirm, onCancel }: Props) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => cancelRef.current?.focus(), []);
  const plainHttp = /^http:\/\//i.test(server);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onCancel();
    } else if (e.key === 'Tab') {
      e.preventDefault();
      const next = document.activeElement === cancelRef.current ? confirmRef.current : cancelRef.current;
      next?.focus();
    }
  };

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div
        className="dialog remote-confirm"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="remote-confirm-title"
        aria-describedby="remote-confirm-text"
        data-testid="remote-confirm"
        onKeyDown={onKeyDown}
      >
        <header className="dialog-head">
          <h2 id="remote-confirm-title">Send passages to another machine?</h2>
        </header>
        <div id="remote-confirm-text" className="remote-confirm-text">
          <p>
            <strong className="remote-server">{server}</strong> is not on this computer.
          </p>
          <p>
            With this model server, every question sends passages from your documents, and the question itself, to that
            machine{plainHttp ? ', unencrypted (the address starts with http://)' : ''}. Save it only if you trust it.
          </p>
        </div>
        <div className="button-row remote-confirm-actions">
          <button type="button" ref={cancelRef} onClick={onCancel} data-testid="remote-cancel">
            Cancel
          </button>
          <button type="button" ref={confirmRef} className="danger" onClick={onConfirm} data-testid="remote-confirm-button">
            Send passages there and save
          </button>
        </div>
      </div>
    </div>
  );
}
