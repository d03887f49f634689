// Package store owns Footnote's index file: one SQLite database holding the
// ingested documents, their sections and chunks, a full-text (FTS5) index and
// a vector (sqlite-vec vec0) index over the chunks, stored answers, and the
// metadata that identifies the index. Documents are written and deleted in
// single transactions, so the three chunk indexes always agree.
//
// Build with -tags sqlite_fts5; without it SQLite has no FTS5 module.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/footnote-app/footnote/backend/vecindex"

	"github.com/footnote-app/footnote/backend/lexical"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/mattn/go-sqlite3"
)

// SchemaVersion is the layout version this build reads and writes.
const SchemaVersion = 13

// IndexLayoutVersion is the last SchemaVersion that changed how documents
// and chunks are stored. Callers include it in the index identity so such a
// change forces a rebuild; a step that only adds bookkeeping (version 5, the
// ingest queue's crash guard) must not re-index every library.
const IndexLayoutVersion = 4

// Analyzer names the analyzer the index is written with (lexical.Analyzer);
// it is stamped into the index's meta table and the index hash.
const Analyzer = lexical.Analyzer

// Metadata keys the store maintains itself.
const (
	metaVectorDim = "vector_dim"
	metaAnalyzer  = "analyzer"
)

var (
	// ErrDimensionMismatch means the index holds vectors of another length
	// than the embedding model produces; the index must be rebuilt.
	ErrDimensionMismatch = errors.New("the index was built with a different embedding model dimension")
	// ErrNewerSchema means the file was written by a newer Footnote.
	ErrNewerSchema = errors.New("the index was created by a newer version of Footnote; update the app or choose another data folder")
	// ErrNotFound means the requested document is not in the index.
	ErrNotFound = errors.New("not found in the index")
)

// Options configure Open.
type Options struct {
	// Dim is the vector length of the embedding model. Zero means "whatever
	// the index already uses" (useful for inspection tools).
	Dim int
	// ResetOnDimensionChange drops all indexed content when the index holds
	// vectors of another length, instead of failing with ErrDimensionMismatch.
	ResetOnDimensionChange bool
	// VectorStorage is how the vector scan reads vectors: float32, int8 or
	// binary (see quant.go); empty means DefaultVectorStorage.
	VectorStorage string
}

// Store is an open index file. It is safe for concurrent use: reads run on a
// pool of read-only connections and never wait for the writer (WAL); writes
// are serialised on one connection that takes the write lock up front.
type Store struct {
	path string
	dim  atomic.Int64 // changes only on Reset
	w    *sql.DB      // exactly one connection, BEGIN IMMEDIATE
	r    *sql.DB      // query_only connections

	storage string                          // vector storage kind, fixed at Open
	quant   atomic.Pointer[vecindex.Params] // nil: search float32 vectors
	mem     codeCache                       // binary codes in memory (bincodes.go)
	content atomic.Value                    // string: the content hash (contenthash.go)
	counts  termCounts                      // query terms' document frequencies (termcounts.go)
}

const driverName = "sqlite3_footnote"

// mmapBytes lets SQLite read the file through the page cache instead of
// read() calls; it helps the full scans vec0 does.
const mmapBytes = 256 << 20

var registerOnce sync.Once

func register() {
	registerOnce.Do(func() {
		// Every connection opened after this gets sqlite-vec and
		// footnote_bm25 (bm25rank.c) loaded.
		sqlite_vec.Auto()
		if err := registerRank(); err != nil {
			panic(err) // only on out of memory at startup
		}
		sql.Register(driverName, &sqlite3.SQLiteDriver{
			ConnectHook: func(c *sqlite3.SQLiteConn) error {
				// The CJK bigram index is filled by triggers that call Go.
				if err := c.RegisterFunc("footnote_cjk_grams", lexical.CJKGrams, true); err != nil {
					return err
				}
				if err := c.RegisterFunc("footnote_index_text", indexText, true); err != nil {
					return err
				}
				_, err := c.Exec("PRAGMA mmap_size = "+strconv.Itoa(mmapBytes), nil)
				return err
			},
		})
	})
}

// Open opens (creating if needed) the index file at path and brings its
// schema up to date. The folder must already exist.
func Open(path string, opts Options) (*Store, error) {
	s, err := open(path, opts)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return s, nil
}

func open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("no index path given")
	}
	if opts.Dim < 0 {
		return nil, fmt.Errorf("invalid vector dimension %d", opts.Dim)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := checkFolder(abs); err != nil {
		return nil, err
	}
	register()

	s := &Store{path: abs}
	s.w, err = sql.Open(driverName, dsn(abs, "_txlock=immediate"))
	if err != nil {
		return nil, err
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)

	ctx := context.Background()
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, explainOpenError(abs, err)
	}
	if err := s.prepareVectors(ctx, opts); err != nil {
		s.w.Close()
		return nil, explainOpenError(abs, err)
	}
	if err := s.prepareQuant(ctx, opts.VectorStorage); err != nil {
		s.w.Close()
		return nil, explainOpenError(abs, err)
	}
	if err := s.loadContentHash(ctx); err != nil {
		s.w.Close()
		return nil, explainOpenError(abs, err)
	}

	s.r, err = sql.Open(driverName, dsn(abs, "_query_only=1"))
	if err != nil {
		s.w.Close()
		return nil, err
	}
	readers := max(4, runtime.NumCPU())
	s.r.SetMaxOpenConns(readers)
	s.r.SetMaxIdleConns(readers)
	if err := s.r.PingContext(ctx); err != nil {
		s.Close()
		return nil, explainOpenError(abs, err)
	}
	return s, nil
}

// dsn builds a SQLite URI so paths containing '?', '#' or '%' survive.
func dsn(abs, extra string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive paths: file:/C:/...
	}
	u := url.URL{Path: p}
	return "file:" + u.EscapedPath() +
		"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_foreign_keys=0&" + extra
}

// checkFolder turns the common "cannot create the file" causes into plain
// sentences before SQLite reports them as "unable to open database file".
func checkFolder(abs string) error {
	dir := filepath.Dir(abs)
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the folder %s does not exist; create it first", dir)
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder, not an index file", abs)
	}
	// SQLite needs to create the -wal and -shm files next to the database.
	f, err := os.CreateTemp(dir, ".footnote-write-check-*")
	if err != nil {
		if explained := ExplainStorage(dir, err); explained != err {
			return explained // read-only or full: one sentence saying what to do
		}
		return fmt.Errorf("the folder %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

func explainOpenError(abs string, err error) error {
	if strings.Contains(err.Error(), "no such module: fts5") {
		return fmt.Errorf("this build of Footnote has no SQLite full-text search (FTS5); rebuild it with -tags sqlite_fts5: %w", err)
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrReadonly, sqlite3.ErrPerm:
			return fmt.Errorf("the index file is read-only; make %s writable or choose another data folder: %w", abs, err)
		case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			return fmt.Errorf("the file is not a Footnote index or is damaged; move it aside to rebuild the index: %w", err)
		case sqlite3.ErrCantOpen:
			return fmt.Errorf("the index file cannot be opened; check that it is a file you may read and write: %w", err)
		}
	}
	return err
}

// Close releases the connections. The writer closes last so SQLite can
// checkpoint the WAL into the main file. A write in flight finishes first:
// database/sql closes a busy connection only when it is released, so
// without holding the single writer connection here a transaction could
// still commit after Close returned. Later writes fail with ErrClosed.
func (s *Store) Close() error {
	var errs []error
	var writer *sql.Conn
	if s.w != nil {
		if c, err := s.w.Conn(context.Background()); err == nil {
			writer = c
		}
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if writer != nil {
		errs = append(errs, writer.Close()) // the pool is closed: this really closes it
	}
	return errors.Join(errs...)
}

// Path is the absolute path of the index file.
func (s *Store) Path() string { return s.path }

// Dim is the vector length the index holds.
func (s *Store) Dim() int { return int(s.dim.Load()) }

// Versions describes the SQLite engine and extensions behind the index, for
// diagnostics, e.g. "SQLite 3.54.1, FTS5, sqlite-vec v0.1.6, schema 1, dim 384".
func (s *Store) Versions(ctx context.Context) (string, error) {
	var sqliteVersion, vecVersion string
	var fts5 bool
	err := s.r.QueryRowContext(ctx, `SELECT sqlite_version(), vec_version(), sqlite_compileoption_used('ENABLE_FTS5')`).
		Scan(&sqliteVersion, &vecVersion, &fts5)
	if err != nil {
		return "", fmt.Errorf("read SQLite versions: %w", err)
	}
	if !fts5 {
		return "", errors.New("this build of SQLite has no full-text search (FTS5)")
	}
	return fmt.Sprintf("SQLite %s, FTS5, sqlite-vec %s, schema %d, dim %d",
		sqliteVersion, vecVersion, SchemaVersion, s.Dim()), nil
}

// Meta returns the value stored under key.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read index metadata %q: %w", key, err)
	}
	return v, true, nil
}

// SetMeta stores value under key, replacing any previous value.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	if _, err := s.w.ExecContext(ctx, upsertMeta, key, value); err != nil {
		return fmt.Errorf("write index metadata %q: %w", key, s.Explain(err))
	}
	return nil
}

const upsertMeta = `INSERT INTO meta(key, value) VALUES(?, ?)
	ON CONFLICT(key) DO UPDATE SET value = excluded.value`

// withTx runs fn in a write transaction (BEGIN IMMEDIATE on the single
// writer connection) and commits only if fn succeeds. A full disk or a
// read-only folder comes back as a *StorageError (errors.go).
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.Explain(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.explainWrite(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return s.explainWrite(ctx, err)
	}
	return nil
}
