package app

import (
	"testing"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// TestThreadsThroughTheApp: ask, follow up in the same thread with the
// user's edited search, list, rename and delete the thread.
func TestThreadsThroughTheApp(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	id, err := a.AskInThread("", "How do I install on Linux?", "")
	if err != nil {
		t.Fatal(err)
	}
	first := rec.waitFor(t, EventAnswerDone, id).payload.(doneEvent)
	if first.ThreadID == "" || first.Turn != 1 || first.Answer.Followup != nil {
		t.Fatalf("first answer: thread %q turn %d followup %+v", first.ThreadID, first.Turn, first.Answer.Followup)
	}
	id, err = a.AskInThread(first.ThreadID, "What does it need?", "Linux install WebKitGTK requirement")
	if err != nil {
		t.Fatal(err)
	}
	second := rec.waitFor(t, EventAnswerDone, id).payload.(doneEvent)
	f := second.Answer.Followup
	if second.ThreadID != first.ThreadID || second.Turn != 2 || f == nil || f.RewriteSource != "user" || f.Standalone != "Linux install WebKitGTK requirement" {
		t.Fatalf("follow-up: thread %q turn %d followup %+v", second.ThreadID, second.Turn, f)
	}
	turns, err := a.ThreadAnswers(first.ThreadID)
	if err != nil || len(turns) != 2 || turns[1].Answer.Followup == nil || turns[1].Turn.Standalone != f.Standalone {
		t.Fatalf("thread answers: %+v, %v", turns, err)
	}
	if err := a.RenameThread(first.ThreadID, "Linux install"); err != nil {
		t.Fatal(err)
	}
	ts, err := a.Threads()
	if err != nil || len(ts) != 1 || ts[0].Title != "Linux install" || ts[0].Turns != 2 {
		t.Fatalf("threads: %+v, %v", ts, err)
	}
	if err := a.DeleteThread(first.ThreadID); err != nil {
		t.Fatal(err)
	}
	if ts, err := a.Threads(); err != nil || len(ts) != 0 {
		t.Fatalf("threads after delete: %+v, %v", ts, err)
	}
	if hist, err := a.History("", 10); err != nil || len(hist) != 2 {
		t.Errorf("history after deleting the thread: %d answers, %v; want both kept", len(hist), err)
	}
}
