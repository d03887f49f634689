package app

import (
	"context"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
)

// History returns past answers, newest first, whose question or answer
// contains query (case-insensitive; "" matches all), at most limit.
func (a *App) History(query string, limit int) ([]engine.Answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.engine.History(ctx, query, limit)
}
