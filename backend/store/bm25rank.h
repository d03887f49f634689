// Registers footnote_bm25 on every SQLite connection opened afterwards.
int footnote_rank_auto(void);
