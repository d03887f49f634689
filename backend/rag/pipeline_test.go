package rag

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/llm/openai"
	"github.com/footnote-app/footnote/backend/search"
)

func TestBudget(t *testing.T) {
	cases := []struct {
		setting, numCtx, prompt, reserve, want int
	}{
		{1800, 8192, 300, 512, 1800},    // the setting is the limit
		{1800, 2048, 300, 512, 1236},    // the window is the limit
		{1800, 0, 300, 512, 1800},       // window unknown
		{1800, 700, 300, 512, 0},        // nothing left: Pack still packs one passage
		{100, 100000, 50_000, 512, 100}, // huge window, small setting
	}
	for _, tc := range cases {
		if got := Budget(tc.setting, tc.numCtx, tc.prompt, tc.reserve); got != tc.want {
			t.Errorf("Budget(%d,%d,%d,%d) = %d, want %d", tc.setting, tc.numCtx, tc.prompt, tc.reserve, got, tc.want)
		}
	}
}

// TestAskSizesContextWindow checks that the window Pipeline.Window decides
// is sent as num_ctx, that the evidence budget follows from it, and that
// the answer length is cut to what the window leaves instead of the window
// growing (a new num_ctx would reload the model).
func TestAskSizesContextWindow(t *testing.T) {
	words := func(s string) int { return len(strings.Fields(s)) }
	prompt := PromptTokens(words, "q")
	windowOf := func(n int) func(context.Context, string) llm.ContextWindow {
		return func(context.Context, string) llm.ContextWindow {
			return llm.ContextWindow{Tokens: n, Source: "decided", Trained: 131072}
		}
	}
	const maxAnswer = 200
	cases := []struct {
		name       string
		window     func(context.Context, string) llm.ContextWindow
		wantNumCtx int
		wantSource string
		wantBudget int
		wantUsed   int
		wantCut    bool // the answer length is below max_answer_tokens
	}{
		{"window above the need", windowOf(8192), 8192, "decided", 100, 3, false},
		{"window below the setting", windowOf(prompt + 100 + 75), prompt + 100 + 75, "decided", 75, 2, true},
		{"no window decided keeps the setting", windowOf(0), 4096, contextSourceNumCtx, 100, 3, false},
		// Only 10 tokens left: one passage is packed anyway, and the answer
		// gets what the window leaves, the window staying as it is.
		{"first passage always packed, answer cut", windowOf(prompt + 100 + 10), prompt + 100 + 10, "decided", 10, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := &scriptedLLM{tokens: []string{"ok [#1]"}}
			p := newPipeline([]search.Hit{hit("a", 0.9, 40), hit("b", 0.8, 30), hit("c", 0.7, 30)}, model, &memStore{})
			p.Window, p.NumCtx, p.AnswerReserve, p.CountTokens, p.Seed, p.MaxAnswerTokens = tc.window, 4096, 100, words, 7, maxAnswer
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := model.seen.Options["num_ctx"]; got != tc.wantNumCtx {
				t.Errorf("num_ctx sent %v, want %d", got, tc.wantNumCtx)
			}
			if model.seen.Options["seed"] != 7 || model.seen.Options["temperature"] != 0.0 {
				t.Errorf("seed/temperature not sent: %v", model.seen.Options)
			}
			if ans.Retrieval.Budget != tc.wantBudget || ans.Retrieval.Used != tc.wantUsed {
				t.Errorf("budget %d used %d, want %d and %d", ans.Retrieval.Budget, ans.Retrieval.Used, tc.wantBudget, tc.wantUsed)
			}
			g := ans.Generation
			if g.NumCtx != tc.wantNumCtx || g.ContextWindow != tc.wantNumCtx || g.ContextSource != tc.wantSource || g.PromptTokens != prompt {
				t.Errorf("generation not recorded: %+v", g)
			}
			sent := 0
			for _, m := range model.seen.Messages {
				sent += words(m.Content) + templateTokens
			}
			numPredict := model.seen.Options["num_predict"]
			if numPredict != g.NumPredict || (g.NumPredict < maxAnswer) != tc.wantCut || sent+g.NumPredict > g.ContextWindow {
				t.Errorf("num_predict sent %v, recorded %d (max %d), prompt %d: prompt and answer must fit the %d window",
					numPredict, g.NumPredict, maxAnswer, sent, g.ContextWindow)
			}
		})
	}
}

// TestWindowTooSmallIsNotSent: when the question and its first passage
// leave less than a short answer's room, the model is not asked (it would
// cut the start of the prompt); the answer says why, in one sentence.
func TestWindowTooSmallIsNotSent(t *testing.T) {
	words := func(s string) int { return len(strings.Fields(s)) }
	model := &scriptedLLM{tokens: []string{"ok [#1]"}}
	st := &memStore{}
	hits := []search.Hit{hit("a", 0.9, 40)}
	hits[0].Text = strings.Repeat("long passage text ", 60)
	p := newPipeline(hits, model, st)
	p.Window = func(context.Context, string) llm.ContextWindow {
		return llm.ContextWindow{Tokens: 256, Source: "decided"}
	}
	p.CountTokens, p.MaxAnswerTokens, p.AnswerReserve = words, 1024, 64
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
	if !errors.Is(err, ErrWindowTooSmall) || model.calls != 0 {
		t.Fatalf("err %v, %d model calls; want ErrWindowTooSmall and none", err, model.calls)
	}
	if ans.RefusalReason == nil || *ans.RefusalReason != RefusalContextWindow || ans.Grounded || len(st.answers) != 1 ||
		!strings.Contains(ans.Error, "256 tokens of m's context window (decided)") || strings.Count(ans.Error, ".") != 1 {
		t.Errorf("reason %v, error %q, stored %d", ans.RefusalReason, ans.Error, len(st.answers))
	}
}

type panickySink struct{ calls int }

func (p *panickySink) Evidence(string, []Citation) {}
func (p *panickySink) Token(string, string) {
	p.calls++
	panic("window closed")
}

type slowSink struct {
	recordingSink
	delay time.Duration
}

func (s *slowSink) Token(id, tok string) {
	time.Sleep(s.delay) // a busy UI thread, not synchronisation
	s.recordingSink.Token(id, tok)
}

// TestDroppedListenerDoesNotAbort: a sink that panics (its window is gone)
// or is slow does not stop generation; the whole answer is stored.
func TestDroppedListenerDoesNotAbort(t *testing.T) {
	tokens := []string{"Install", " it", " [#1]", "."}
	for name, sink := range map[string]Sink{"panics": &panickySink{}, "slow": &slowSink{delay: 5 * time.Millisecond}} {
		t.Run(name, func(t *testing.T) {
			st := &memStore{}
			h := hit("a", 0.9, 5)
			h.Text = "passage a: install it from the AppImage." // the scripted answer says so, so it verifies
			ans, err := newPipeline([]search.Hit{h}, &scriptedLLM{tokens: tokens}, st).Ask(context.Background(), Request{ID: "r", Question: "q"}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Answer != "Install it [#1]." || !ans.Grounded || len(st.answers) != 1 || st.answers[0].Answer != ans.Answer {
				t.Fatalf("generation affected by the sink: %+v", ans)
			}
			if p, ok := sink.(*panickySink); ok && p.calls != 1 {
				t.Errorf("a panicking sink must be dropped after its first panic, called %d times", p.calls)
			}
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for name, hits := range map[string][]search.Hit{
		"grounded": {hit("a", 0.9, 5), hit("b", 0.8, 5)},
		"refused":  {hit("a", 0.1, 5)},
	} {
		st := &memStore{}
		p := newPipeline(hits, &scriptedLLM{tokens: []string{"Yes [#2]."}}, st)
		p.Provider, p.NumCtx, p.Seed = "ollama", 4096, 42
		ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromRecord(st.answers[0])
		if err != nil {
			t.Fatal(err)
		}
		// The store keeps instants, not zones or monotonic readings.
		back.CreatedAt, back.FinishedAt = ans.CreatedAt, ans.FinishedAt
		if !reflect.DeepEqual(back, ans) {
			t.Errorf("%s: stored answer differs\n got %+v\nwant %+v", name, back, ans)
		}
	}
}

// fakeOllama returns a fake server, a pipeline generating through it with
// the real client, and the store the pipeline writes to.
func fakeOllama(t *testing.T, opts ...ollamafake.Option) (*ollamafake.Server, *Pipeline, *memStore) {
	t.Helper()
	fake := ollamafake.New(opts...)
	t.Cleanup(fake.Close)
	host, err := llm.ParseHost(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	client := llm.NewClient(host, nil).WithFirstTokenTimeout(5 * time.Second)
	st := &memStore{}
	p := newPipeline([]search.Hit{hit("a", 0.9, 5), hit("b", 0.8, 5)}, client, st)
	p.Model, p.Provider, p.NumCtx, p.AnswerReserve, p.Seed = ollamafake.DefaultModel, "ollama", 4096, 512, 42
	p.Window = func(ctx context.Context, model string) llm.ContextWindow {
		w, _ := client.ContextWindow(ctx, model, p.NumCtx)
		return w
	}
	p.Describe = func(err error) string { return llm.Describe(err, client.Host(), p.Model) }
	return fake, p, st
}

// TestPipelineAgainstFakeOllama drives every generation path through the
// real Ollama client and the fake server built from recorded traffic.
func TestPipelineAgainstFakeOllama(t *testing.T) {
	say := func(text string) ollamafake.Option {
		return ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply { return ollamafake.Reply{Tokens: ollamafake.Words(text)} })
	}
	cases := []struct {
		name     string
		opts     []ollamafake.Option
		model    string
		grounded bool
		reason   string
		cited    int
		errPart  string // in the stored error and the returned error
	}{
		{"grounded", nil, "", true, "", 2, ""},
		{"cites a passage it was not given", []ollamafake.Option{say("It is so [#1] and [#9].")}, "", false, RefusalSelfJudge, 1, ""},
		{"no citation", []ollamafake.Option{say("It is so.")}, "", false, RefusalNoCitation, 0, ""},
		{"refusal sentence", []ollamafake.Option{say(RefusalSentence)}, "", false, RefusalNoCitation, 0, ""},
		{"look-alike markers", []ollamafake.Option{say("See [1] and [ #2 ].")}, "", false, RefusalNoCitation, 0, ""},
		{"truncated stream", []ollamafake.Option{ollamafake.WithTruncateAfter(2)}, "", false, RefusalLLMError, 0, "stopped before finishing"},
		{"error in stream", []ollamafake.Option{ollamafake.WithErrorAfter(1, "llama runner process has terminated")}, "", false, RefusalLLMError, 0, "runner process has terminated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, p, st := fakeOllama(t, tc.opts...)
			if tc.model != "" {
				p.Model = tc.model
			}
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "How to install?"}, nil)
			if (err != nil) != (tc.errPart != "") || (err != nil && !strings.Contains(err.Error(), tc.errPart)) {
				t.Fatalf("error %v, want one containing %q", err, tc.errPart)
			}
			if len(st.answers) != 1 {
				t.Fatalf("stored %d answers", len(st.answers))
			}
			rec := st.answers[0]
			if ans.Grounded != tc.grounded || rec.Grounded != tc.grounded || rec.RefusalReason != tc.reason || len(ans.Citations) != tc.cited {
				t.Errorf("grounded=%v reason=%q cited=%d; want %v %q %d (answer %q)", rec.Grounded, rec.RefusalReason, len(ans.Citations), tc.grounded, tc.reason, tc.cited, ans.Answer)
			}
			if !strings.Contains(rec.Error, tc.errPart) {
				t.Errorf("stored error %q, want %q", rec.Error, tc.errPart)
			}
			if tc.errPart == "" {
				if ans.Usage.PromptTokens == 0 || ans.Usage.AnswerTokens == 0 || ans.Usage.TotalNS == 0 || ans.Usage.DoneReason != "stop" {
					t.Errorf("usage from the final object not kept: %+v", ans.Usage)
				}
				sent := fake.Requests()[0].Options
				if fmt.Sprint(sent["num_ctx"], " ", sent["seed"], " ", sent["temperature"]) != "4096 42 0" {
					t.Errorf("options sent: %v", sent)
				}
			}
		})
	}
}

func TestStopCancelsAtServerAndIsStored(t *testing.T) {
	fake, p, st := fakeOllama(t, ollamafake.WithResponder(func(llm.ChatRequest) ollamafake.Reply {
		return ollamafake.Reply{Tokens: ollamafake.Words(strings.Repeat("more words ", 500)), Delay: 10 * time.Millisecond}
	}))
	ctx, cancel := context.WithCancel(context.Background())
	sink := &cancelAfter{n: 3, cancel: cancel}
	ans, err := p.Ask(ctx, Request{ID: "r", Question: "q"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Stopped || *ans.RefusalReason != RefusalStopped || !st.answers[0].Stopped || st.answers[0].Answer == "" {
		t.Fatalf("want a stored stopped answer, got %+v / %+v", ans, st.answers)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if err := fake.WaitCancelled(wctx, 1); err != nil {
		t.Fatalf("generation was not cancelled at the server: %v", err)
	}
}

type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel func()
}

func (c *cancelAfter) Evidence(string, []Citation) {}
func (c *cancelAfter) Token(string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		c.cancel()
	}
}

// TestDeterministicAnswer: the same question with temperature 0 and a fixed
// seed against a deterministic server stores the same answer.
func TestDeterministicAnswer(t *testing.T) {
	var stored []Answer
	for range 2 {
		_, p, st := fakeOllama(t)
		if _, err := p.Ask(context.Background(), Request{ID: "r", Question: "How to install?"}, nil); err != nil {
			t.Fatal(err)
		}
		a, err := FromRecord(st.answers[0])
		if err != nil {
			t.Fatal(err)
		}
		a.Usage = Usage{} // server timings differ run to run; everything else must not
		a.TraceID = ""    // each retrieval has its own trace id by design
		stored = append(stored, a)
	}
	if !reflect.DeepEqual(stored[0], stored[1]) {
		t.Fatalf("stored answers differ:\n%+v\n%+v", stored[0], stored[1])
	}
	if !stored[0].Grounded || stored[0].Generation.Seed != 42 {
		t.Errorf("unexpected answer %+v", stored[0])
	}
}

// TestPipelineAgainstOpenAICompatible runs the same pipeline through the
// second provider (SSE, data: [DONE]).
func TestPipelineAgainstOpenAICompatible(t *testing.T) {
	for name, opts := range map[string][]ollamafake.Option{
		"grounded":  nil,
		"truncated": {ollamafake.WithTruncateAfter(2)},
	} {
		t.Run(name, func(t *testing.T) {
			fake := ollamafake.New(opts...)
			defer fake.Close()
			client, err := openai.New(fake.URL(), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			st := &memStore{}
			p := newPipeline([]search.Hit{hit("a", 0.9, 5)}, client, st)
			p.Model, p.Provider, p.Seed = ollamafake.DefaultModel, "openai", 42
			p.Describe = func(err error) string { return openai.Describe(err, client.Host(), p.Model) }
			ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "q"}, nil)
			if name == "truncated" {
				if err == nil || *ans.RefusalReason != RefusalLLMError || !strings.Contains(st.answers[0].Error, "connection was cut") {
					t.Fatalf("truncated SSE must be an error, got %v %+v", err, ans)
				}
				return
			}
			if err != nil || !ans.Grounded || ans.Usage.AnswerTokens == 0 || st.answers[0].Model != ollamafake.DefaultModel {
				t.Fatalf("answer %+v err %v", ans, err)
			}
		})
	}
}

// TestUnknownModelAnswersWithPassages: Ollama runs but the model is not
// installed: the question gets the matching passages, and the stored note
// says which model to pull.
func TestUnknownModelAnswersWithPassages(t *testing.T) {
	_, p, st := fakeOllama(t)
	p.Model = "no-such-model"
	ans, err := p.Ask(context.Background(), Request{ID: "r", Question: "How to install?"}, nil)
	if err != nil {
		t.Fatalf("a missing model must not fail the question: %v", err)
	}
	if len(st.answers) != 1 || st.answers[0].RefusalReason != RefusalNoModel || ans.Grounded || len(ans.Citations) == 0 {
		t.Fatalf("stored %+v; answer grounded %v with %d citations", st.answers, ans.Grounded, len(ans.Citations))
	}
	if !strings.Contains(st.answers[0].Error, "ollama pull no-such-model") || !strings.HasPrefix(ans.Error, NoModelNotice) {
		t.Errorf("note %q", st.answers[0].Error)
	}
}
