package store

import "sync"

// termCounts keeps exact document frequencies of query terms for one state
// of each FTS5 table (ftsState's key): a write to the index changes the key
// and drops the table's counts. Counting a common word walks its whole row
// list, and common words are the ones that come back query after query.
type termCounts struct {
	mu     sync.Mutex
	tables map[string]*tableCounts
}

type tableCounts struct {
	state string
	df    map[string]int
}

// maxCountedTerms bounds the terms kept per table; past it the table's
// counts start over.
const maxCountedTerms = 1 << 14

func (c *termCounts) get(table, state, expr string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tables[table]
	if t == nil || t.state != state {
		return 0, false
	}
	df, ok := t.df[expr]
	return df, ok
}

func (c *termCounts) put(table, state, expr string, df int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables == nil {
		c.tables = map[string]*tableCounts{}
	}
	t := c.tables[table]
	if t == nil || t.state != state || len(t.df) >= maxCountedTerms {
		t = &tableCounts{state: state, df: map[string]int{}}
		c.tables[table] = t
	}
	t.df[expr] = df
}
