package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestThreadsLifecycle: create, add turns (numbered in order, the thread
// marked updated), list newest first, rename, delete; unknown ids fail with
// ErrNoThread and deleting a thread keeps its answers.
func TestThreadsLifecycle(t *testing.T) {
	s := openTest(t, 4)
	ctx := context.Background()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a, err := s.CreateThread(ctx, "th_a", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateThread(ctx, "th_b", "Other", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveAnswer(ctx, AnswerRecord{ID: "ans_1", Question: "When was the main office opened?", CitationsJSON: "[]", RetrievalJSON: "{}"}); err != nil {
		t.Fatal(err)
	}
	for i, q := range []string{"When was the main office opened?", "And who designed it?"} {
		turn, err := s.AddTurn(ctx, a.ID, ThreadTurn{AnswerID: "ans_1", Question: q, Standalone: q + " (s)"}, t0.Add(time.Duration(2+i)*time.Minute))
		if err != nil || turn.Seq != i+1 {
			t.Fatalf("turn %d: %+v, %v", i+1, turn, err)
		}
	}
	ts, err := s.Threads(ctx)
	if err != nil || len(ts) != 2 || ts[0].ID != "th_a" || ts[0].Turns != 2 || !ts[0].UpdatedAt.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("threads = %+v, %v", ts, err)
	}
	turns, err := s.ThreadTurns(ctx, a.ID)
	if err != nil || len(turns) != 2 || turns[1].Question != "And who designed it?" || turns[1].Standalone != "And who designed it? (s)" {
		t.Fatalf("turns = %+v, %v", turns, err)
	}
	if err := s.RenameThread(ctx, a.ID, "Main office"); err != nil {
		t.Fatal(err)
	}
	if th, err := s.ThreadByID(ctx, a.ID); err != nil || th.Title != "Main office" {
		t.Fatalf("renamed = %+v, %v", th, err)
	}
	for name, err := range map[string]error{
		"rename":   s.RenameThread(ctx, "th_none", "x"),
		"delete":   s.DeleteThread(ctx, "th_none"),
		"add turn": func() error { _, err := s.AddTurn(ctx, "th_none", ThreadTurn{}, t0); return err }(),
	} {
		if !errors.Is(err, ErrNoThread) {
			t.Errorf("%s of an unknown thread: %v, want ErrNoThread", name, err)
		}
	}
	if err := s.DeleteThread(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if turns, err := s.ThreadTurns(ctx, a.ID); err != nil || len(turns) != 0 {
		t.Errorf("turns after delete = %+v, %v", turns, err)
	}
	if _, found, err := s.AnswerByID(ctx, "ans_1"); err != nil || !found {
		t.Errorf("deleting a thread lost its answer: %v", err)
	}
}
