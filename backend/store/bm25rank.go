package store

// #include "bm25rank.h"
import "C"

import "fmt"

// registerRank makes footnote_bm25 (bm25rank.c) available on every
// connection opened afterwards.
func registerRank() error {
	if rc := C.footnote_rank_auto(); rc != 0 {
		return fmt.Errorf("register footnote_bm25: sqlite error %d", int(rc))
	}
	return nil
}
