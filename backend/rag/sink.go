package rag

import "sync"

// Sink receives an answer as it forms. It must not block for long; a sink
// that has gone away (a closed window) must not stop generation.
type Sink interface {
	Evidence(requestID string, evidence []Citation)
	Token(requestID, token string)
}

// guardSink shields generation from the UI: a nil sink is a no-op, and a
// sink that panics (a listener that went away) is dropped, so the answer is
// still generated and stored.
func guardSink(s Sink) Sink {
	if s == nil {
		return nopSink{}
	}
	return &safeSink{inner: s}
}

type nopSink struct{}

func (nopSink) Evidence(string, []Citation) {}

func (nopSink) Token(string, string) {}

type safeSink struct {
	mu      sync.Mutex
	inner   Sink
	dropped bool
}

func (s *safeSink) call(f func(Sink)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped {
		return
	}
	defer func() {
		if recover() != nil {
			s.dropped = true
		}
	}()
	f(s.inner)
}

func (s *safeSink) Evidence(id string, c []Citation) { s.call(func(in Sink) { in.Evidence(id, c) }) }

func (s *safeSink) Token(id, tok string) { s.call(func(in Sink) { in.Token(id, tok) }) }
