import { useState, type KeyboardEvent, type Ref } from 'react';

interface Props {
  busy: boolean;
  canStop: boolean;
  onAsk: (question: string) => void;
  onStop: () => void;
  inputRef: Ref<HTMLTextAreaElement>;
}

/** Question box: Enter asks, Shift+Enter adds a line. */
export function Composer({ busy, canStop, onAsk, onStop, inputRef }: Props) {
  const [question, setQuestion] = useState('');

  const submit = () => {
    const q = question.trim();
    if (!q || busy) return;
    onAsk(q);
    setQuestion('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor="question-input" className="visually-hidden">
        Question
      </label>
      <textarea
        id="question-input"
        data-testid="question-input"
        ref={inputRef}
        rows={2}
        value={question}
        placeholder="Ask about your documents… (Enter to send, Shift+Enter for a new line)"
        onChange={(e) => setQuestion(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {busy ? (
        <button type="button" onClick={onStop} disabled={!canStop} data-testid="stop-button">
          Stop
        </button>
      ) : (
        <button type="submit" className="primary" disabled={!question.trim()} data-testid="ask-button">
          Ask
        </button>
      )}
    </form>
  );
}
