package app

import (
	"context"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
)

// Threads lists conversation threads, most recently updated first.
func (a *App) Threads() ([]engine.Thread, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.engine.Threads(ctx)
}

// NewThread starts an empty thread (a blank title is taken from its first
// question).
func (a *App) NewThread(title string) (engine.Thread, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.engine.NewThread(ctx, title)
}

// RenameThread changes a thread's title.
func (a *App) RenameThread(id, title string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.engine.RenameThread(ctx, id, title)
}

// DeleteThread removes a thread; its answers stay in the history.
func (a *App) DeleteThread(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.engine.DeleteThread(ctx, id)
}

// ThreadAnswers returns a thread's turns with their answers, in order.
func (a *App) ThreadAnswers(id string) ([]engine.ThreadAnswer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.engine.ThreadAnswers(ctx, id)
}

// AskInThread asks question in thread threadID ("" starts a thread) and
// returns the request id; the answer arrives as events like Ask's, the done
// event naming the thread and turn. standalone, when not blank, is the
// user's edit of "Searched for", searched for as is.
func (a *App) AskInThread(threadID, question, standalone string) (string, error) {
	id := newRequestID()
	a.goCancellable(id, func(ctx context.Context) {
		if err := a.engine.Ready(ctx); err != nil {
			a.emit(EventAnswerError, errorEvent{RequestID: id, Error: userText(err)})
			return
		}
		ta, err := a.engine.AskInThread(ctx, threadID, engine.Request{ID: id, Question: question}, standalone, eventSink{a}, engine.AskOptions{})
		if err != nil {
			a.emit(EventAnswerError, errorEvent{RequestID: id, Error: userText(err)})
			return
		}
		a.emit(EventAnswerDone, doneEvent{RequestID: id, Answer: ta.Answer, ThreadID: ta.Thread.ID, Turn: ta.Turn.Seq})
	})
	return id, nil
}
