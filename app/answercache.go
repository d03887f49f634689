package app

// AskFresh is Ask without the semantic answer cache: the question is
// answered from the documents even when a similar one was answered before.
func (a *App) AskFresh(question string) (string, error) { return a.ask(question, true) }

// AnswerCacheEnabled reports whether answers may be served from the cache.
func (a *App) AnswerCacheEnabled() bool { return a.engine.CacheEnabled() }

// SetAnswerCache turns the semantic answer cache on or off for this session.
func (a *App) SetAnswerCache(on bool) bool {
	a.engine.SetCacheEnabled(on)
	return a.engine.CacheEnabled()
}

// SetCrossSectionPolicy sets whether one answer sentence may cite several
// sections: "allow" (shown with a warning) or "forbid" (the answer is not
// shown as grounded).
func (a *App) SetCrossSectionPolicy(policy string) error {
	return a.engine.SetCrossSectionPolicy(policy)
}
