package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/payport/payport"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrSchemaTooNew is returned by Migrate when the database was migrated by a
// newer payport than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this binary")

// DB is a payport.Store on a PostgreSQL database, shared by any number of
// payport nodes.
type DB struct {
	queries
	pool   *pgxpool.Pool
	url    string // the URL with its password masked, for messages
	schema string // the first schema of the URL's search_path, "" when none was given
}

var _ payport.Store = (*DB)(nil)

// Open connects a pool to the database at dbURL (a postgres:// URL or a
// key=value connection string; pgxpool's pool_* parameters are honoured)
// and pings it. It does not migrate; call Migrate. When dbURL carries
// search_path, every table, goose's version table included, lives in the
// first schema it names. Errors name the URL with its password masked and
// never carry the password, whatever the driver's message held.
func Open(ctx context.Context, dbURL string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, openError(dbURL, err)
	}
	if err := checkUnambiguous(dbURL, cfg); err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, openError(dbURL, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, openError(dbURL, err)
	}
	return &DB{
		queries: queries{q: pool},
		pool:    pool,
		url:     MaskURL(dbURL),
		schema:  firstSchema(cfg.ConnConfig.RuntimeParams["search_path"]),
	}, nil
}

// Ping checks that the database answers, for readiness probes.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping %s: %w", db.url, err)
	}
	return nil
}

// Close closes the pool, waiting for connections in use to be returned.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// passwordParam matches a password (or sslpassword) in a key=value
// connection string or in a URL's query; group 2 is the value.
var passwordParam = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)

// MaskURL returns the database URL with its password replaced by "xxxxx",
// fit for logs and error messages. Both the URL form and the key=value
// form are understood.
func MaskURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		return passwordParam.ReplaceAllString(u.Redacted(), "${1}xxxxx")
	}
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		// An unparsable URL: mask whatever lies between the user name and
		// the last '@' before the query.
		head, query, hasQuery := strings.Cut(rest, "?")
		if at := strings.LastIndex(head, "@"); at >= 0 {
			if user, _, hasPW := strings.Cut(head[:at], ":"); hasPW {
				head = user + ":xxxxx" + head[at:]
			}
		}
		rest = head
		if hasQuery {
			rest += "?" + query
		}
		return passwordParam.ReplaceAllString(scheme+"://"+rest, "${1}xxxxx")
	}
	return passwordParam.ReplaceAllString(raw, "${1}xxxxx")
}

// passwordsOf returns the passwords a connection string carries, as they
// are written in it and decoded, longest first.
func passwordsOf(raw string) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
			if d, err := url.QueryUnescape(s); err == nil && d != s {
				out = append(out, d)
			}
		}
	}
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		head, _, _ := strings.Cut(rest, "?")
		if at := strings.LastIndex(head, "@"); at >= 0 {
			_, pw, _ := strings.Cut(head[:at], ":")
			add(pw)
		}
	}
	for _, m := range passwordParam.FindAllStringSubmatch(raw, -1) {
		v := m[2]
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = v[1 : len(v)-1]
		}
		add(v)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// openError is an error of Open: its text names the masked URL and has
// every password of the URL masked; it unwraps to the driver's error.
func openError(raw string, err error) error {
	msg := err.Error()
	for _, pw := range passwordsOf(raw) {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return &maskedError{msg: "postgres: open " + MaskURL(raw) + ": " + msg, err: err}
}

// errMalformedURL is the cause of Open's refusal of a URL that parsers
// read differently.
var errMalformedURL = errors.New("malformed database URL")

// checkUnambiguous refuses a URL whose password the driver and the
// standard URL parser read differently (an unescaped '@', '/' or ':' in
// it): the driver would then connect somewhere else than meant, and the
// parts of the password it took for a host name would reach its error
// messages, where masking cannot find them.
func checkUnambiguous(raw string, cfg *pgxpool.Config) error {
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok || (scheme != "postgres" && scheme != "postgresql") {
		return nil
	}
	u, err := url.Parse(raw)
	if err == nil {
		pw, has := u.User.Password()
		if !has || u.Query().Has("password") || pw == cfg.ConnConfig.Password {
			return nil
		}
	}
	return &maskedError{
		msg: "postgres: open " + MaskURL(raw) + ": malformed URL: percent-encode the characters @ : / ? # % in the user name and password",
		err: errMalformedURL,
	}
}

// maskedError carries a message cleaned of secrets and the original error.
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// firstSchema returns the first schema named by a search_path setting, ""
// when there is none or it is the per-user default "$user".
func firstSchema(searchPath string) string {
	first, _, _ := strings.Cut(searchPath, ",")
	first = strings.TrimSpace(first)
	if len(first) >= 2 && first[0] == '"' && first[len(first)-1] == '"' {
		first = strings.ReplaceAll(first[1:len(first)-1], `""`, `"`)
	}
	if first == "$user" {
		return ""
	}
	return first
}

// provider returns a goose provider over the pool (through pgx's
// database/sql adapter) and the embedded migrations, and a function that
// releases its *sql.DB (the pool stays open).
func (db *DB) provider() (*goose.Provider, func(), error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, nil, err
	}
	sqlDB := stdlib.OpenDBFromPool(db.pool)
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, sub)
	if err != nil {
		sqlDB.Close()
		return nil, nil, err
	}
	return p, func() { _ = sqlDB.Close() }, nil
}

// SchemaVersion returns the version of the newest migration applied, 0 for
// a database never migrated. It only reads: goose's version table is not
// created here.
func (db *DB) SchemaVersion(ctx context.Context) (int64, error) {
	return schemaVersion(ctx, db.pool)
}

func schemaVersion(ctx context.Context, q querier) (int64, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, mapErr("schema version", err)
	}
	if !exists {
		return 0, nil
	}
	var v int64
	err := q.QueryRow(ctx, `SELECT coalesce(max(version_id), 0) FROM goose_db_version`).Scan(&v)
	return v, mapErr("schema version", err)
}

// migrateLock is the key of the session advisory lock Migrate holds: one
// per database and search_path, so that nodes sharing a schema migrate one
// after the other while tests in separate schemas do not wait for each other.
const migrateLock = `hashtextextended('payport migrate ' || current_setting('search_path'), 0)`

// Migrate applies the embedded migrations the database lacks, creating the
// search_path schema first when the URL named one that does not exist yet.
// A database newer than the binary is refused with ErrSchemaTooNew. It
// holds a session advisory lock while it works, so several nodes starting
// at once migrate one after the other: the first applies the migrations,
// the others find nothing left to do. The lock is taken on a connection of
// its own, outside the pool, so that a pool of one connection cannot
// deadlock, and closing that connection releases it whatever happens.
func (db *DB) Migrate(ctx context.Context) error {
	lockConn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("postgres: migrate: connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = lockConn.Close(cctx) // ends the session and with it the lock
	}()
	if _, err := lockConn.Exec(ctx, `SELECT pg_advisory_lock(`+migrateLock+`)`); err != nil {
		return fmt.Errorf("postgres: migrate: take the migration lock: %w", err)
	}
	if err := db.createSchema(ctx, lockConn); err != nil {
		return err
	}

	p, closeProvider, err := db.provider()
	if err != nil {
		return fmt.Errorf("postgres: migrations: %w", err)
	}
	defer closeProvider()
	current, err := schemaVersion(ctx, lockConn)
	if err != nil {
		return err
	}
	sources := p.ListSources()
	latest := sources[len(sources)-1].Version
	if current > latest {
		return fmt.Errorf("%w: database schema version %d is newer than this payport binary supports (%d); upgrade payport", ErrSchemaTooNew, current, latest)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	return nil
}

// createSchema creates the search_path schema when the URL named one and it
// does not exist. An existing schema needs no CREATE privilege on the
// database.
func (db *DB) createSchema(ctx context.Context, conn *pgx.Conn) error {
	if db.schema == "" {
		return nil
	}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, db.schema).Scan(&exists); err != nil {
		return mapErr("migrate: look up schema", err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{db.schema}.Sanitize()); err != nil {
		return mapErr("migrate: create schema "+db.schema, err)
	}
	return nil
}

// Update runs fn in one READ COMMITTED transaction and commits it when fn
// returns nil. fn's error comes back unchanged after a rollback; a panic in
// fn rolls back and panics on. The rules written in fn hold under
// concurrency through the row locks and conditional statements of the Tx
// methods (see the package documentation).
func (db *DB) Update(ctx context.Context, fn func(payport.Tx) error) (err error) {
	pgTx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return mapErr("begin", err)
	}
	rollback := func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = pgTx.Rollback(rctx)
	}
	defer func() {
		if v := recover(); v != nil {
			rollback()
			panic(v)
		}
	}()
	if err := fn(&tx{queries: queries{q: pgTx}}); err != nil {
		rollback()
		return err
	}
	return mapErr("commit", pgTx.Commit(ctx))
}

// tx is a read-write transaction.
type tx struct {
	queries
}

// querier is what *pgxpool.Pool, *pgx.Conn and pgx.Tx have in common,
// so each query is written once and runs on any of them.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// queries holds the statements of payport.Reader, run on the pool or in a
// transaction.
type queries struct {
	q querier
}

// SQLSTATE codes that mapErr distinguishes.
const (
	codeUniqueViolation = "23505"
	codeCheckViolation  = "23514"
)

// mapErr turns driver errors into domain errors by SQLSTATE: a uniqueness
// violation becomes payport.ErrConflict, a missing row payport.ErrNotFound;
// anything else is wrapped with the operation. A violated CHECK constraint
// stays an internal error (the service validates first, so reaching one
// is a bug), named as such in the message. Nothing matches on error text.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: %s: %w", op, payport.ErrNotFound)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case codeUniqueViolation:
			return fmt.Errorf("postgres: %s: %s: %w", op, pe.ConstraintName, payport.ErrConflict)
		case codeCheckViolation:
			return fmt.Errorf("postgres: %s: check constraint %s violated: %w", op, pe.ConstraintName, err)
		}
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// conflict is the error of an INSERT … ON CONFLICT DO NOTHING that
// inserted nothing.
func conflict(op string) error {
	return fmt.Errorf("postgres: %s: %w", op, payport.ErrConflict)
}

// insertedOrConflict maps the Scan error of an INSERT … ON CONFLICT DO
// NOTHING RETURNING: no row means a uniqueness rule refused it.
func insertedOrConflict(op string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return conflict(op)
	}
	return mapErr(op, err)
}

// affected returns ErrNotFound when a statement changed no row.
func affected(op string, tag pgconn.CommandTag, err error) error {
	if err != nil {
		return mapErr(op, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: %s: %w", op, payport.ErrNotFound)
	}
	return nil
}

// collect scans every row into the pointers fields returns for a new T
// (one of the rowmap Fields functions) and closes rows; no rows is an
// empty, non-nil slice.
func collect[T any](rows pgx.Rows, op string, fields func(*T) []any) ([]T, error) {
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) {
		var v T
		err := r.Scan(fields(&v)...)
		return v, err
	})
	if err != nil {
		return nil, mapErr(op, err)
	}
	return list, nil
}

// placeholders returns "$from, $from+1, …" for n parameters.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// PoolStats reports the connection pool, for metrics.
func (db *DB) PoolStats() []payport.PoolStats {
	s := db.pool.Stat()
	return []payport.PoolStats{{Pool: "pool", Max: int(s.MaxConns()), Open: int(s.TotalConns()), InUse: int(s.AcquiredConns()), Idle: int(s.IdleConns())}}
}
