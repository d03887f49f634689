// footnote_bm25: FTS5's bm25() with the document frequencies supplied.
//
// The built-in bm25() computes each phrase's idf by walking the phrase's
// whole row list once per statement: 22 ms for a word in 78% of a 1M-chunk
// index, paid again by every statement of a query. The planner already
// knows every term's document frequency (counted once per index state,
// lexical.go), so this function takes them as arguments and is otherwise
// the built-in formula, operation for operation (k1 = 1.2, b = 0.75, one
// weight per column, idf clamped to 1e-6): its scores equal bm25()'s.
//
// Usage: footnote_bm25(table, df0, df1, ...) with one frequency per phrase
// of the MATCH expression, in the order the phrases appear in it; a
// negative one gives its phrase no weight (a phrase repeated only to select
// rows).

#include <math.h>
#include <string.h>
#include <sqlite3.h>

#include "bm25rank.h"

typedef struct {
	int nPhrase;
	double avgdl;
	double *aIDF;
	double *aFreq;
} rankData;

static int rankGetData(const Fts5ExtensionApi *api, Fts5Context *fts, int nVal, sqlite3_value **apVal, rankData **out) {
	rankData *p = (rankData *)api->xGetAuxdata(fts, 0);
	if (p) {
		*out = p;
		return SQLITE_OK;
	}
	int nPhrase = api->xPhraseCount(fts);
	if (nVal != nPhrase) {
		return SQLITE_MISMATCH;
	}
	p = (rankData *)sqlite3_malloc64(sizeof(rankData) + (sqlite3_int64)nPhrase * 2 * sizeof(double));
	if (!p) {
		return SQLITE_NOMEM;
	}
	memset(p, 0, sizeof(rankData) + (size_t)nPhrase * 2 * sizeof(double));
	p->nPhrase = nPhrase;
	p->aIDF = (double *)&p[1];
	p->aFreq = &p->aIDF[nPhrase];
	sqlite3_int64 nRow = 0, nToken = 0;
	int rc = api->xRowCount(fts, &nRow);
	if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
	if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;
	for (int i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
		sqlite3_int64 nHit = sqlite3_value_int64(apVal[i]);
		if (nHit < 0) {
			p->aIDF[i] = 0.0; // a phrase repeated only to select rows
			continue;
		}
		double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
		if (idf <= 0.0) idf = 1e-6;
		p->aIDF[i] = idf;
	}
	if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, p, sqlite3_free);
	else sqlite3_free(p);
	if (rc == SQLITE_OK) *out = p;
	return rc;
}

static void rankFunction(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	const double k1 = 1.2, b = 0.75;
	rankData *p = 0;
	int nInst = 0;
	int rc = rankGetData(api, fts, nVal, apVal, &p);
	if (rc == SQLITE_MISMATCH) {
		sqlite3_result_error(ctx, "footnote_bm25: give one document frequency per phrase", -1);
		return;
	}
	if (rc == SQLITE_OK) {
		memset(p->aFreq, 0, sizeof(double) * p->nPhrase);
		rc = api->xInstCount(fts, &nInst);
	}
	for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
		int ip, ic, io;
		rc = api->xInst(fts, i, &ip, &ic, &io);
		if (rc == SQLITE_OK) p->aFreq[ip] += 1.0;
	}
	double D = 0.0;
	if (rc == SQLITE_OK) {
		int nTok;
		rc = api->xColumnSize(fts, -1, &nTok);
		D = (double)nTok;
	}
	if (rc != SQLITE_OK) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	double score = 0.0;
	for (int i = 0; i < p->nPhrase; i++) {
		score += p->aIDF[i] * ((p->aFreq[i] * (k1 + 1.0)) / (p->aFreq[i] + k1 * (1 - b + b * D / p->avgdl)));
	}
	sqlite3_result_double(ctx, -1.0 * score);
}

static int rankRegister(sqlite3 *db, char **errMsg, const void *thunk) {
	(void)errMsg;
	(void)thunk;
	fts5_api *api = 0;
	sqlite3_stmt *stmt = 0;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) != SQLITE_OK) {
		return SQLITE_OK; // no FTS5 in this build: nothing to add to
	}
	sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
	sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (!api || api->iVersion < 2) {
		return SQLITE_OK;
	}
	return api->xCreateFunction(api, "footnote_bm25", 0, rankFunction, 0);
}

int footnote_rank_auto(void) {
	return sqlite3_auto_extension((void (*)(void))rankRegister);
}
