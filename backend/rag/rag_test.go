package rag

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/clock"
	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
)

func TestExtractMarkersStrict(t *testing.T) {
	cases := map[string][]int{
		"a [#1] b [#2] and [#1] again": {1, 2},
		"[1] [ #1 ] vec![1] [#] [#x]":  nil,
		"[#12][#999][#1000]":           {12, 999}, // 4 digits is not a marker (the 3-digit prefix would need "]")
		"text[#3].":                    {3},
	}
	for in, want := range cases {
		if got := ExtractMarkers(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ExtractMarkers(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		answer   string
		packed   int
		grounded bool
		reason   string
		cited    []int
	}{
		{"Yes [#1] and [#2].", 2, true, "", []int{1, 2}},
		{"Yes [#1] and [#3].", 2, false, RefusalSelfJudge, []int{1}},
		{"Yes [#0].", 2, false, RefusalSelfJudge, nil},
		{"Yes, definitely.", 2, false, RefusalNoCitation, nil},
		{RefusalSentence, 2, false, RefusalNoCitation, nil},
		{"Fake [1] and [ #1 ]", 2, false, RefusalNoCitation, nil},
	}
	for _, tc := range cases {
		v := Validate(tc.answer, tc.packed)
		if v.Grounded != tc.grounded || v.RefusalReason != tc.reason || !reflect.DeepEqual(v.Cited, tc.cited) {
			t.Errorf("Validate(%q,%d) = %+v, want grounded=%v reason=%q cited=%v", tc.answer, tc.packed, v, tc.grounded, tc.reason, tc.cited)
		}
	}
}

type fakeRetriever struct{ hits []search.Hit }

func (f fakeRetriever) Search(context.Context, string, search.Options) (search.Result, error) {
	return search.Result{Hits: f.hits}, nil
}

// scriptedLLM streams the given tokens, honouring cancellation like the
// real client, and counts calls.
type scriptedLLM struct {
	tokens []string
	gate   chan struct{} // when set, waits before each token after the first
	calls  int
	seen   *llm.ChatRequest
}

func (s *scriptedLLM) Chat(ctx context.Context, req *llm.ChatRequest, fn llm.ChatFunc) error {
	s.calls++
	s.seen = req
	for i, tok := range s.tokens {
		if s.gate != nil && i > 0 {
			select {
			case <-s.gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(llm.ChatResponse{Message: llm.Message{Role: "assistant", Content: tok}}); err != nil {
			return err
		}
	}
	var done llm.ChatResponse
	done.Done, done.DoneReason = true, "stop"
	done.PromptEvalCount, done.EvalCount = 42, len(s.tokens)
	return fn(done)
}

type memStore struct {
	mu      sync.Mutex
	answers []store.AnswerRecord
}

func (m *memStore) SaveAnswer(_ context.Context, a store.AnswerRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.answers = append(m.answers, a)
	return nil
}

type recordingSink struct {
	mu       sync.Mutex
	evidence []Citation
	tokens   []string
}

func (r *recordingSink) Evidence(_ string, c []Citation) { r.mu.Lock(); r.evidence = c; r.mu.Unlock() }
func (r *recordingSink) Token(_ string, t string) {
	r.mu.Lock()
	r.tokens = append(r.tokens, t)
	r.mu.Unlock()
}

func hit(id string, score float64, tokens int) search.Hit {
	var h search.Hit
	h.Chunk = corpus.Chunk{SnippetID: id, DocID: "doc_" + id, SectionID: "guide/" + id, Text: "passage " + id, Tokens: tokens,
		Offsets: corpus.Offsets{Start: 0, End: 9, Unit: corpus.UnitChar}, Source: corpus.SourceCorpus}
	h.Title, h.Path = "Guide", "/docs/guide.md"
	h.Rev, h.EmbedModel = "rev_"+id, "e"
	h.ScoreNorm, h.RRF, h.KFinal = score, score/30, 1
	h.Explain = []search.Contribution{{Retriever: search.Lexical, ScoreRaw: -1, KPos: 1, RRF: score / 30}}
	return h
}

func newPipeline(hits []search.Hit, model llm.LLM, st AnswerStore) *Pipeline {
	return &Pipeline{
		Retriever: fakeRetriever{hits}, LLM: model, Store: st,
		Clock: &clock.Fixed{T: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)},
		Model: "m", EmbedModel: "e", Mode: search.ModeHybrid, TopK: 10, EvidenceK: 3, ContextTokens: 100, WordMatchGate: 0.3,
		IndexHash: "idx1", Analyzer: "an", Live: provenance.Live{IndexHash: "idx1", Analyzer: "an"},
	}
}

func TestAskGroundedAnswer(t *testing.T) {
	model := &scriptedLLM{tokens: []string{"Install", " with", " the", " AppImage", " [#1]", "."}}
	st := &memStore{}
	sink := &recordingSink{}
	hits := []search.Hit{hit("a", 0.9, 20), hit("b", 0.8, 20)}
	hits[0].Text = "passage a: install Footnote with the AppImage." // what the scripted answer claims, so it verifies
	p := newPipeline(hits, model, st)
	ans, err := p.Ask(context.Background(), Request{ID: "r1", Question: "How to install?"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Grounded || ans.RefusalReason != nil {
		t.Fatalf("want grounded answer, got %+v", ans)
	}
	if ans.Answer != "Install with the AppImage [#1]." || strings.Join(sink.tokens, "") != ans.Answer {
		t.Errorf("answer %q, streamed %q", ans.Answer, strings.Join(sink.tokens, ""))
	}
	if len(ans.Citations) != 1 || ans.Citations[0].SnippetID != "a" || ans.Citations[0].SourceURL != "file:///docs/guide.md" {
		t.Errorf("citations: %+v", ans.Citations)
	}
	if len(sink.evidence) != 2 || sink.evidence[1].N != 2 {
		t.Errorf("evidence sent to the UI: %+v", sink.evidence)
	}
	if ans.Usage.PromptTokens != 42 || ans.Usage.AnswerTokens != 6 {
		t.Errorf("usage from the final object not recorded: %+v", ans.Usage)
	}
	user := model.seen.Messages[len(model.seen.Messages)-1].Content
	if !strings.Contains(user, "[#1] Guide › guide/a\npassage a") || !strings.Contains(user, "Question: How to install?") {
		t.Errorf("prompt does not number the evidence as expected:\n%s", user)
	}
	if len(st.answers) != 1 || !st.answers[0].Grounded || st.answers[0].PromptTemplate != TemplateVersion {
		t.Fatalf("answer not stored as grounded: %+v", st.answers)
	}
}

func TestAskRefusalsSkipTheLLM(t *testing.T) {
	cases := []struct {
		name    string
		hits    []search.Hit
		reason  string
		nearest int
	}{
		{"no chunks", nil, RefusalNoChunks, 0},
		{"below gate lists 3 nearest", []search.Hit{hit("a", 0.9, 5), hit("b", 0.8, 5), hit("c", 0.7, 5), hit("d", 0.6, 5)}, RefusalScoreGate, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := &scriptedLLM{tokens: []string{"x"}}
			st := &memStore{}
			p := newPipeline(tc.hits, model, st)
			// No passage holds the question's words, whatever their fused scores.
			p.Answerability = &Answerability{Stats: fakeTermStats{chunks: 100}}
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "What does the licence cost?"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if model.calls != 0 {
				t.Errorf("LLM was called %d times", model.calls)
			}
			if ans.Grounded || ans.RefusalReason == nil || *ans.RefusalReason != tc.reason {
				t.Errorf("want refusal %s, got %+v", tc.reason, ans)
			}
			if len(ans.Nearest) != tc.nearest {
				t.Errorf("want %d nearest candidates, got %d", tc.nearest, len(ans.Nearest))
			}
			if len(st.answers) != 1 || st.answers[0].RefusalReason != tc.reason {
				t.Errorf("refusal not stored: %+v", st.answers)
			}
		})
	}
}

func TestAskUngroundedMarkers(t *testing.T) {
	for tokens, reason := range map[string]string{
		"Made up [#7].":  RefusalSelfJudge,
		"No cites here.": RefusalNoCitation,
	} {
		model := &scriptedLLM{tokens: []string{tokens}}
		ans, err := newPipeline([]search.Hit{hit("a", 0.9, 5)}, model, &memStore{}).Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Grounded || *ans.RefusalReason != reason {
			t.Errorf("%q: want %s, got grounded=%v reason=%v", tokens, reason, ans.Grounded, *ans.RefusalReason)
		}
	}
}

func TestAskStoppedIsStored(t *testing.T) {
	gate := make(chan struct{})
	model := &scriptedLLM{tokens: []string{"Partial", " answer", " never", " finished"}, gate: gate}
	st := &memStore{}
	ctx, cancel := context.WithCancel(context.Background())
	sink := &recordingSink{}
	done := make(chan Answer)
	go func() {
		ans, _ := newPipeline([]search.Hit{hit("a", 0.9, 5)}, model, st).Ask(ctx, Request{ID: "r", Question: "q"}, sink)
		done <- ans
	}()
	gate <- struct{}{} // the first token has been sent; stop before the rest
	cancel()
	ans := <-done
	if !ans.Stopped || ans.Grounded || *ans.RefusalReason != RefusalStopped {
		t.Fatalf("want stopped answer, got %+v", ans)
	}
	// Cancellation races the second token, so either one or two tokens arrived;
	// never the whole answer, and never none.
	if ans.Answer != "Partial" && ans.Answer != "Partial answer" {
		t.Errorf("partial text lost or run past the stop: %q", ans.Answer)
	}
	if len(st.answers) != 1 || !st.answers[0].Stopped || st.answers[0].Answer != ans.Answer {
		t.Fatalf("stopped answer not stored: %+v", st.answers)
	}
}

type failingLLM struct{}

func (failingLLM) Chat(context.Context, *llm.ChatRequest, llm.ChatFunc) error {
	return errors.New("boom")
}

func TestAskLLMErrorIsStoredAndReturned(t *testing.T) {
	st := &memStore{}
	p := newPipeline([]search.Hit{hit("a", 0.9, 5)}, failingLLM{}, st)
	p.Describe = func(err error) string { return "The model failed: " + err.Error() }
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
	if err == nil || err.Error() != "The model failed: boom" {
		t.Fatalf("want described error, got %v", err)
	}
	if *ans.RefusalReason != RefusalLLMError || len(st.answers) != 1 || st.answers[0].Error != "The model failed: boom" {
		t.Fatalf("LLM failure not stored: %+v", st.answers)
	}
}

func TestPackBudget(t *testing.T) {
	hits := []search.Hit{hit("a", 0.9, 80), hit("b", 0.8, 50), hit("c", 0.7, 15), hit("d", 0.6, 1)}
	got := Pack(hits, 3, 100)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.SnippetID)
	}
	if !reflect.DeepEqual(ids, []string{"a", "c", "d"}) || got[2].N != 3 {
		t.Errorf("pack = %v (%+v)", ids, got)
	}
	if one := Pack([]search.Hit{hit("big", 0.9, 500)}, 3, 100); len(one) != 1 {
		t.Errorf("the first hit must always be packed, got %d", len(one))
	}
}

func TestEmptyQuestion(t *testing.T) {
	_, err := newPipeline(nil, &scriptedLLM{}, &memStore{}).Ask(context.Background(), Request{ID: "r", Question: "  "}, nil)
	if !errors.Is(err, ErrEmptyQuestion) {
		t.Fatalf("want ErrEmptyQuestion, got %v", err)
	}
}
