// Package clock gives the backend a replaceable notion of "now", so tests can
// pin timestamps that end up in ids, eligibility checks and stored answers.
package clock

import "time"

// Clock tells the time.
type Clock interface{ Now() time.Time }

// System is the real clock.
type System struct{}

// Now returns the current time.
func (System) Now() time.Time { return time.Now() }

// Fixed always returns the same instant; Advance moves it.
type Fixed struct{ T time.Time }

// Now returns the fixed instant.
func (f *Fixed) Now() time.Time { return f.T }

// Advance moves the fixed clock forward.
func (f *Fixed) Advance(d time.Duration) { f.T = f.T.Add(d) }
