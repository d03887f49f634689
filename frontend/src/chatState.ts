// Chat history and the streaming state machine, as a pure reducer so the
// event handling (including ignoring other requests' events) is unit-tested.
import type {
  Answer,
  AnswerDoneEvent,
  AnswerErrorEvent,
  AnswerStartEvent,
  AnswerTokenEvent,
  Citation,
} from './types';

export type TurnPhase = 'asking' | 'streaming' | 'stopping' | 'done' | 'stopped' | 'error';

export interface Turn {
  /** Local key; stable before the request id is known. */
  key: number;
  requestId: string | null;
  question: string;
  text: string;
  citations: Citation[];
  phase: TurnPhase;
  answer: Answer | null;
  error: string | null;
}

export type AnswerEvent =
  | { type: 'answer:start'; payload: AnswerStartEvent }
  | { type: 'answer:token'; payload: AnswerTokenEvent }
  | { type: 'answer:done'; payload: AnswerDoneEvent }
  | { type: 'answer:error'; payload: AnswerErrorEvent };

export type ChatAction =
  | { type: 'ask'; question: string }
  | { type: 'asked'; requestId: string }
  | { type: 'askFailed'; error: string }
  | { type: 'stopping' }
  | { type: 'stopFailed'; error: string }
  /** Shows a past answer (from history) as a finished turn. */
  | { type: 'show'; answer: Answer }
  /** Empties the chat (switching threads); ignored while an answer is open. */
  | { type: 'clear' }
  | AnswerEvent;

export interface ChatState {
  turns: Turn[];
  nextKey: number;
  /**
   * Events that arrived while Ask() had not yet returned the request id; they
   * are replayed for the matching id and dropped otherwise. Bounded.
   */
  early: AnswerEvent[];
}

const MAX_EARLY_EVENTS = 5000;

export const initialChatState: ChatState = { turns: [], nextKey: 1, early: [] };

/** The turn that events may update: the last one, while it is still open. */
export function currentTurn(state: ChatState): Turn | undefined {
  const last = state.turns[state.turns.length - 1];
  return last && isOpen(last.phase) ? last : undefined;
}

export function isOpen(phase: TurnPhase): boolean {
  return phase === 'asking' || phase === 'streaming' || phase === 'stopping';
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'ask': {
      if (currentTurn(state)) return state;
      const turn: Turn = {
        key: state.nextKey,
        requestId: null,
        question: action.question,
        text: '',
        citations: [],
        phase: 'asking',
        answer: null,
        error: null,
      };
      return { turns: [...state.turns, turn], nextKey: state.nextKey + 1, early: [] };
    }
    case 'asked': {
      const turn = currentTurn(state);
      if (!turn || turn.requestId !== null) return state;
      let next: ChatState = {
        ...state,
        early: [],
        turns: replaceLast(state.turns, { ...turn, requestId: action.requestId }),
      };
      for (const event of state.early) {
        if (event.payload.request_id === action.requestId) next = chatReducer(next, event);
      }
      return next;
    }
    case 'askFailed':
      return updateCurrent({ ...state, early: [] }, (t) => ({ ...t, phase: 'error', error: action.error }));
    case 'stopping':
      return updateCurrent(state, (t) => ({ ...t, phase: 'stopping' }));
    case 'clear':
      return currentTurn(state) ? state : { ...initialChatState, nextKey: state.nextKey };
    case 'show': {
      if (currentTurn(state)) return state;
      const a = action.answer;
      const turn: Turn = {
        key: state.nextKey,
        requestId: a.request_id,
        question: a.question,
        text: a.answer,
        citations: a.citations && a.citations.length > 0 ? a.citations : (a.evidence ?? []),
        phase: a.stopped ? 'stopped' : 'done',
        answer: a,
        error: a.error || null,
      };
      return { ...state, turns: [...state.turns, turn], nextKey: state.nextKey + 1 };
    }
    case 'stopFailed':
      return updateCurrent(state, (t) => ({ ...t, phase: 'error', error: action.error }));
    default:
      return applyEvent(state, action);
  }
}

function applyEvent(state: ChatState, event: AnswerEvent): ChatState {
  const turn = currentTurn(state);
  if (!turn) return state;
  if (turn.requestId === null) {
    if (state.early.length >= MAX_EARLY_EVENTS) return state;
    return { ...state, early: [...state.early, event] };
  }
  if (event.payload.request_id !== turn.requestId) return state;

  switch (event.type) {
    case 'answer:start':
      return updateCurrent(state, (t) => ({
        ...t,
        citations: event.payload.citations ?? [],
        phase: t.phase === 'stopping' ? 'stopping' : 'streaming',
      }));
    case 'answer:token':
      return updateCurrent(state, (t) => ({
        ...t,
        text: t.text + event.payload.token,
        phase: t.phase === 'asking' ? 'streaming' : t.phase,
      }));
    case 'answer:done': {
      const answer = event.payload.answer;
      return updateCurrent(state, (t) => ({
        ...t,
        text: answer.answer,
        citations: answer.citations && answer.citations.length > 0 ? answer.citations : t.citations,
        answer,
        phase: answer.stopped ? 'stopped' : 'done',
        // A finished answer may carry a note, e.g. that it was cut at the length limit.
        error: answer.error || null,
      }));
    }
    case 'answer:error':
      return updateCurrent(state, (t) => ({ ...t, phase: 'error', error: event.payload.error }));
  }
}

function updateCurrent(state: ChatState, update: (turn: Turn) => Turn): ChatState {
  const turn = currentTurn(state);
  if (!turn) return state;
  return { ...state, turns: replaceLast(state.turns, update(turn)) };
}

function replaceLast(turns: Turn[], turn: Turn): Turn[] {
  return [...turns.slice(0, -1), turn];
}
