package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// Prepared statements. SQLite spends much of a short query's time parsing
// and planning its text, and database/sql prepares every query anew unless
// asked not to. stmtCache keeps one *sql.Stmt per query text (database/sql
// in turn keeps it prepared on each connection it has run on), so each
// statement is parsed once per connection. Query texts built at run time
// with a variable number of placeholders could grow the cache without
// bound, so it stops adding past maxCached entries and runs the rest
// unprepared.

//
// The writer pool has a single connection, which a transaction holds while
// it runs, so its statements cannot be prepared on demand: a query the
// writer's cache lacks runs unprepared and is noted, and the writer
// prepares the noted ones between transactions (prepareNoted).

const maxCached = 512

type stmtCache struct {
	db       *sql.DB
	deferred bool // prepare between transactions, not on demand
	mu       sync.Mutex
	stmts    map[string]*sql.Stmt
	noted    map[string]bool
}

func newStmtCache(db *sql.DB, deferred bool) *stmtCache {
	return &stmtCache{db: db, deferred: deferred, stmts: map[string]*sql.Stmt{}, noted: map[string]bool{}}
}

// prepareNoted prepares the queries noted since the last call; the writer
// calls it while it holds no transaction.
func (c *stmtCache) prepareNoted(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for query := range c.noted {
		if st, err := c.db.PrepareContext(ctx, query); err == nil && len(c.stmts) < maxCached {
			c.stmts[query] = st
		} else if err == nil {
			_ = st.Close()
		}
	}
	clear(c.noted)
}

// stmt returns the prepared statement of query, or nil when it is not
// cached and cannot be (the cache is full, or preparing failed: the caller
// then runs the query unprepared and reports its error).
func (c *stmtCache) stmt(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st
	}
	if len(c.stmts) >= maxCached {
		return nil
	}
	if c.deferred {
		c.noted[query] = true
		return nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.stmts[query] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		_ = st.Close()
	}
	c.stmts = nil
}

// cachedDB runs queries on a pool through the cache.
type cachedDB struct{ *stmtCache }

func (c cachedDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.db.ExecContext(ctx, query, args...)
}

func (c cachedDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (c cachedDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

// cachedTx runs queries in a transaction through the cache of its pool.
type cachedTx struct {
	tx    *sql.Tx
	cache *stmtCache
}

func (c cachedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.cache.stmt(ctx, query); st != nil {
		return c.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return c.tx.ExecContext(ctx, query, args...)
}

func (c cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.cache.stmt(ctx, query); st != nil {
		return c.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return c.tx.QueryContext(ctx, query, args...)
}

func (c cachedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.cache.stmt(ctx, query); st != nil {
		return c.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return c.tx.QueryRowContext(ctx, query, args...)
}
