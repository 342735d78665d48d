package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/payport/payport"
)

// Group commit. SQLite commits one write transaction at a time and each
// commit waits for the disk, which caps durable writes at a few thousand a
// second. Update therefore hands its function to one writer goroutine that
// runs every function waiting at that moment in one transaction, each
// inside its own savepoint, and commits once for all of them:
//
//   - a function that fails is rolled back to its savepoint and its error
//     returned to its caller; the others are unaffected;
//   - the functions run one after another, each seeing what the earlier
//     ones wrote, exactly as if they had been separate transactions in that
//     order, so every rule that holds under the single writer still holds;
//   - no caller returns before the commit that made its writes durable; if
//     that commit fails, every function of the batch fails.

// maxBatch bounds the functions sharing one commit.
const maxBatch = 256

// errClosed answers an Update after Close.
var errClosed = errors.New("sqlite: database is closed")

// write is one Update waiting for the writer.
type write struct {
	ctx  context.Context
	fn   func(payport.Tx) error
	done chan result
}

// result is what a write came to: an error, or a panic to re-raise in the
// caller's goroutine.
type result struct {
	err   error
	panic any
}

// panicked carries a panic out of fn.
type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.v) }

// Update runs fn in a write transaction, possibly shared with other
// concurrent Updates (group commit, above). It commits fn's writes when fn
// returns nil and discards them otherwise, returning fn's error unchanged.
func (db *DB) Update(ctx context.Context, fn func(payport.Tx) error) error {
	w := &write{ctx: ctx, fn: fn, done: make(chan result, 1)}
	select {
	case db.writes <- w:
	case <-ctx.Done():
		return ctx.Err()
	case <-db.closing:
		return errClosed
	}
	r := <-w.done // even if ctx ends: the batch may be committing fn's writes
	if r.panic != nil {
		panic(r.panic)
	}
	return r.err
}

// writeLoop is the writer goroutine: it takes the writes waiting, runs
// them as one batch, and repeats until Close.
func (db *DB) writeLoop() {
	defer close(db.stopped)
	batch := make([]*write, 0, maxBatch)
	for {
		select {
		case w := <-db.writes:
			batch = append(batch[:0], w)
		case <-db.closing:
			return
		}
	collect:
		for len(batch) < maxBatch {
			select {
			case w := <-db.writes:
				batch = append(batch, w)
			default:
				break collect
			}
		}
		db.runBatch(batch)
		db.wstmts.prepareNoted(context.Background())
	}
}

// runBatch runs a batch in one transaction and tells every caller.
func (db *DB) runBatch(batch []*write) {
	results := make([]result, len(batch))
	sqlTx, err := db.writer.BeginTx(context.Background(), nil)
	if err != nil {
		for i := range batch {
			results[i].err = mapErr("begin", err)
		}
		deliver(batch, results)
		return
	}
	committed := 0
	for i, w := range batch {
		results[i] = runOne(sqlTx, db.wstmts, w, len(batch) > 1)
		if results[i].err == nil && results[i].panic == nil {
			committed++
		}
	}
	switch {
	case committed == 0:
		_ = sqlTx.Rollback()
	default:
		if err := sqlTx.Commit(); err != nil {
			for i := range results {
				if results[i].err == nil && results[i].panic == nil {
					results[i].err = mapErr("commit", err)
				}
			}
		}
	}
	deliver(batch, results)
}

// runOne runs one function, inside a savepoint when it shares the
// transaction, and undoes its writes when it fails.
func runOne(sqlTx *sql.Tx, stmts *stmtCache, w *write, shared bool) (r result) {
	if err := w.ctx.Err(); err != nil {
		return result{err: err}
	}
	if shared {
		if _, err := sqlTx.Exec(`SAVEPOINT w`); err != nil {
			return result{err: mapErr("savepoint", err)}
		}
	}
	undo := func() {
		if shared {
			_, _ = sqlTx.Exec(`ROLLBACK TO w`)
			_, _ = sqlTx.Exec(`RELEASE w`)
		}
	}
	defer func() {
		if v := recover(); v != nil {
			undo()
			r = result{panic: v}
			if !shared { // alone: nothing else to commit
				r.err = panicked{v}
			}
		}
	}()
	if err := w.fn(&tx{queries: queries{q: cachedTx{tx: sqlTx, cache: stmts}}}); err != nil {
		undo()
		return result{err: err}
	}
	if shared {
		if _, err := sqlTx.Exec(`RELEASE w`); err != nil {
			return result{err: mapErr("release savepoint", err)}
		}
	}
	return result{}
}

func deliver(batch []*write, results []result) {
	for i, w := range batch {
		w.done <- results[i]
	}
}
