package store

import (
	"context"
	"testing"
	"time"
)

func TestQueueParseMarksAndCrashRecords(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	if err := s.Enqueue(ctx, []QueueItem{{Path: "/l/a.pdf", Op: OpIndex}, {Path: "/l/b.pdf", Op: OpIndex}}); err != nil {
		t.Fatal(err)
	}
	items, _ := s.QueueNext(ctx, 10)
	for _, it := range items {
		if err := s.QueueMarkParsing(ctx, it, "dead:1"); err != nil {
			t.Fatal(err)
		}
	}
	// b's parse returned; a's process died.
	if err := s.QueueUnmarkParsing(ctx, items[1], "dead:1"); err != nil {
		t.Fatal(err)
	}
	alive := func(owner string) bool { return owner != "dead:1" }
	for round := 1; round <= 2; round++ {
		if n, err := s.QueueCountCrashes(ctx, alive); err != nil || n != 1 {
			t.Fatalf("round %d: counted %d (%v), want 1", round, n, err)
		}
		if n, _ := s.QueueCountCrashes(ctx, alive); n != 0 {
			t.Fatalf("round %d: a mark was counted twice", round)
		}
		items, _ = s.QueueNext(ctx, 10)
		if items[0].Crashes != round || items[1].Crashes != 0 {
			t.Fatalf("round %d: crashes %d and %d", round, items[0].Crashes, items[1].Crashes)
		}
		s.QueueMarkParsing(ctx, items[0], "dead:1")
	}
	// Re-queueing the path keeps its count: a new scan must not reset a
	// file that crashes every run.
	if err := s.Enqueue(ctx, []QueueItem{{Path: "/l/a.pdf", Op: OpIndex}}); err != nil {
		t.Fatal(err)
	}
	if items, _ = s.QueueNext(ctx, 10); items[len(items)-1].Crashes != 2 {
		t.Fatalf("re-queued item: %+v", items)
	}

	at := time.Unix(1700000000, 0).UTC()
	if err := s.RecordReaderCrash(ctx, ReaderCrash{Path: "/l/a.pdf", Rev: "r1", Error: "crashed", CrashedAt: at}); err != nil {
		t.Fatal(err)
	}
	c, found, err := s.ReaderCrashAt(ctx, "/l/a.pdf")
	if err != nil || !found || c.Rev != "r1" || c.Error != "crashed" || !c.CrashedAt.Equal(at) {
		t.Fatalf("ReaderCrashAt: %+v %v %v", c, found, err)
	}
	if all, _ := s.ReaderCrashes(ctx); len(all) != 1 {
		t.Fatalf("ReaderCrashes: %+v", all)
	}
	if err := s.ForgetReaderCrash(ctx, "/l/a.pdf"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.ReaderCrashAt(ctx, "/l/a.pdf"); found {
		t.Fatal("record not forgotten")
	}
}
