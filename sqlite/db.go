package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sync"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/payport/payport"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrSchemaTooNew is returned by Migrate when the database was migrated by a
// newer payport than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this binary")

// DB is a payport.Store on one SQLite file.
type DB struct {
	queries
	writer *sql.DB
	reader *sql.DB
	wstmts *stmtCache // prepared statements of the writer connection
	rstmts *stmtCache // and of the read pool

	writes    chan *write // to the writer goroutine (commit.go)
	closing   chan struct{}
	stopped   chan struct{}
	closeOnce sync.Once
}

var _ payport.Store = (*DB)(nil)

// readerConns is the size of the read pool.
const readerConns = 4

// Open opens (creating if needed) the SQLite database at path. It does not
// migrate; call Migrate.
func Open(ctx context.Context, path string) (*DB, error) {
	pragmas := "_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=synchronous(FULL)"
	base := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	writer, err := sql.Open("sqlite", base+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	if err := writer.PingContext(ctx); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	reader, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	reader.SetMaxOpenConns(readerConns)
	reader.SetMaxIdleConns(readerConns)
	rstmts := newStmtCache(reader, false)
	db := &DB{queries: queries{q: cachedDB{rstmts}}, writer: writer, reader: reader, wstmts: newStmtCache(writer, true), rstmts: rstmts,
		writes: make(chan *write), closing: make(chan struct{}), stopped: make(chan struct{})}
	go db.writeLoop()
	return db, nil
}

// Close stops the writer (after the batch in progress) and closes both pools.
func (db *DB) Close() error {
	db.closeOnce.Do(func() { close(db.closing) })
	<-db.stopped
	db.wstmts.close()
	db.rstmts.close()
	return errors.Join(db.reader.Close(), db.writer.Close())
}

func (db *DB) provider() (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectSQLite3, db.writer, sub)
}

// SchemaVersion returns the version of the newest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int64, error) {
	p, err := db.provider()
	if err != nil {
		return 0, fmt.Errorf("sqlite: migrations: %w", err)
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("sqlite: schema version: %w", err)
	}
	return v, nil
}

// Migrate applies the embedded migrations the database lacks. A database
// newer than the binary is refused with ErrSchemaTooNew.
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.provider()
	if err != nil {
		return fmt.Errorf("sqlite: migrations: %w", err)
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: schema version: %w", err)
	}
	sources := p.ListSources()
	latest := sources[len(sources)-1].Version
	if current > latest {
		return fmt.Errorf("%w: database schema version %d is newer than this payport binary supports (%d); upgrade payport", ErrSchemaTooNew, current, latest)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	return nil
}

// tx is a write transaction.
type tx struct {
	queries
}

// querier is what *sql.DB and *sql.Tx have in common, so each query is
// written once and runs on either.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type queries struct {
	q querier
}

// mapErr turns driver errors into domain errors by SQLite result code:
// uniqueness violations become payport.ErrConflict, missing rows
// payport.ErrNotFound; anything else is wrapped with the operation. A
// violated CHECK constraint stays an internal error (the service validates
// first, so reaching one is a bug), named as such in the message.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: %s: %w", op, payport.ErrNotFound)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("sqlite: %s: %w", op, payport.ErrConflict)
		case sqlite3.SQLITE_CONSTRAINT_CHECK:
			return fmt.Errorf("sqlite: %s: check constraint violated: %w", op, err)
		}
	}
	return fmt.Errorf("sqlite: %s: %w", op, err)
}

// affected returns ErrNotFound when res changed no row.
func affected(op string, res sql.Result, err error) error {
	if err != nil {
		return mapErr(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return mapErr(op, err)
	}
	if n == 0 {
		return fmt.Errorf("sqlite: %s: %w", op, payport.ErrNotFound)
	}
	return nil
}

// Ping checks that the database file answers, for readiness probes.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.reader.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// PoolStats reports the writer connection and the read pool, for metrics.
func (db *DB) PoolStats() []payport.PoolStats {
	out := make([]payport.PoolStats, 0, 2)
	for _, p := range []struct {
		name string
		db   *sql.DB
	}{{"writer", db.writer}, {"reader", db.reader}} {
		s := p.db.Stats()
		out = append(out, payport.PoolStats{Pool: p.name, Max: s.MaxOpenConnections, Open: s.OpenConnections, InUse: s.InUse, Idle: s.Idle})
	}
	return out
}
