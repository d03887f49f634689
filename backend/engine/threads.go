package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

type (
	// Thread is a conversation: questions asked one after another.
	Thread = store.Thread
	// ThreadTurn is one question of a thread and the answer it got.
	ThreadTurn = store.ThreadTurn
	// Turn is an earlier question as a follow-up's rewrite and prompt see it.
	Turn = rag.Turn
	// Followup records a follow-up's standalone question and the turns used.
	Followup = rag.Followup
)

// ErrNoThread matches a thread id that does not exist.
var ErrNoThread = store.ErrNoThread

// ThreadAnswer is an answer given in a thread, with the turn it became.
type ThreadAnswer struct {
	Thread Thread     `json:"thread"`
	Turn   ThreadTurn `json:"turn"`
	Answer Answer     `json:"answer"`
}

// maxTitleRunes bounds a thread title taken from its first question.
const maxTitleRunes = 80

// NewThread starts an empty thread; a blank title is filled in from the
// first question.
func (e *Engine) NewThread(ctx context.Context, title string) (Thread, error) {
	if err := e.Ready(ctx); err != nil {
		return Thread{}, err
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return Thread{}, fmt.Errorf("new thread: %w", err)
	}
	return e.index().CreateThread(ctx, "th_"+hex.EncodeToString(b), strings.TrimSpace(title), e.clock.Now())
}

// Threads lists threads, most recently updated first.
func (e *Engine) Threads(ctx context.Context) ([]Thread, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	return e.index().Threads(ctx)
}

// LatestThread is the most recently updated thread (for --follow-up);
// ErrNoThread when there is none.
func (e *Engine) LatestThread(ctx context.Context) (Thread, error) {
	ts, err := e.Threads(ctx)
	if err != nil {
		return Thread{}, err
	}
	if len(ts) == 0 {
		return Thread{}, fmt.Errorf("no thread to follow up yet: ask a question first: %w", ErrNoThread)
	}
	return ts[0], nil
}

// RenameThread changes a thread's title.
func (e *Engine) RenameThread(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("rename thread: the new title is empty")
	}
	if err := e.Ready(ctx); err != nil {
		return err
	}
	return e.index().RenameThread(ctx, id, title)
}

// DeleteThread removes a thread; its answers stay in the history.
func (e *Engine) DeleteThread(ctx context.Context, id string) error {
	if err := e.Ready(ctx); err != nil {
		return err
	}
	return e.index().DeleteThread(ctx, id)
}

// ThreadTurns returns a thread's turns in order.
func (e *Engine) ThreadTurns(ctx context.Context, id string) ([]ThreadTurn, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	if _, err := e.index().ThreadByID(ctx, id); err != nil {
		return nil, err
	}
	return e.index().ThreadTurns(ctx, id)
}

// ThreadAnswers returns a thread's turns with their stored answers.
func (e *Engine) ThreadAnswers(ctx context.Context, id string) ([]ThreadAnswer, error) {
	turns, err := e.ThreadTurns(ctx, id)
	if err != nil {
		return nil, err
	}
	th, err := e.index().ThreadByID(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]ThreadAnswer, 0, len(turns))
	for _, t := range turns {
		rec, found, err := e.index().AnswerByID(ctx, t.AnswerID)
		if err != nil {
			return nil, err
		}
		ta := ThreadAnswer{Thread: th, Turn: t}
		if found {
			ta.Answer = AnswerFromRecord(rec)
		} else {
			ta.Answer = Answer{Question: t.Question, Citations: []Citation{}, Evidence: []Citation{}}
		}
		out = append(out, ta)
	}
	return out, nil
}

// AskInThread asks req in thread id ("" starts a new thread titled by the
// question): the thread's earlier questions, never their answers, become the
// request's history, so a follow-up is rewritten into a standalone question
// before retrieval. standalone, when not blank, is the user's own edit of
// the standalone question and is searched for as is.
func (e *Engine) AskInThread(ctx context.Context, id string, req Request, standalone string, sink Sink, opts AskOptions) (ThreadAnswer, error) {
	var th Thread
	var err error
	if id == "" {
		th, err = e.NewThread(ctx, "")
	} else {
		if err = e.Ready(ctx); err == nil {
			th, err = e.index().ThreadByID(ctx, id)
		}
	}
	if err != nil {
		return ThreadAnswer{}, err
	}
	turns, err := e.index().ThreadTurns(ctx, th.ID)
	if err != nil {
		return ThreadAnswer{}, err
	}
	for _, t := range turns {
		req.History = append(req.History, rag.Turn{Question: t.Question, Standalone: t.Standalone})
	}
	if s := strings.TrimSpace(standalone); s != "" {
		req.Followup = &rag.Followup{Standalone: s, RewriteSource: rag.RewriteUser}
	}
	ans, err := e.AskWith(ctx, req, sink, opts)
	if err != nil && ans.ID == "" {
		return ThreadAnswer{Thread: th, Answer: ans}, err
	}
	turn := ThreadTurn{AnswerID: ans.ID, Question: ans.Question, Standalone: ans.SearchQuestion()}
	turn, terr := e.index().AddTurn(context.WithoutCancel(ctx), th.ID, turn, e.clock.Now())
	if terr != nil {
		return ThreadAnswer{Thread: th, Answer: ans}, errors.Join(err, terr)
	}
	if th.Title == "" {
		th.Title = titleOf(ans.Question)
		if rerr := e.index().RenameThread(context.WithoutCancel(ctx), th.ID, th.Title); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	th.Turns = turn.Seq
	th.UpdatedAt = e.clock.Now().UTC()
	return ThreadAnswer{Thread: th, Turn: turn, Answer: ans}, err
}

func titleOf(question string) string {
	q := strings.Join(strings.Fields(question), " ")
	if r := []rune(q); len(r) > maxTitleRunes {
		return string(r[:maxTitleRunes-1]) + "…"
	}
	return q
}
