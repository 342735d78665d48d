package dump

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Format is the value of Header.Format, the mark of a payport dump.
const Format = "payport-dump"

// FormatVersion is the version of the file format that this package writes
// and the only one it reads.
const FormatVersion = 1

// KnownSchemaVersion is the schema version whose tables this package
// copies. Export refuses a database at another version, so that a
// migration adding a table cannot be silently left out of dumps: a new
// migration must update Tables and this constant (a test fails until it
// does).
const KnownSchemaVersion int64 = 3

// Engine names, as Export and Import take them.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// ErrNotEmpty is the cause of Import's refusal of a database that has rows.
var ErrNotEmpty = errors.New("target database is not empty")

// ErrSchemaVersion is the cause of a refusal over schema versions: a dump
// and a target database of different versions, or a source that this
// package does not know.
var ErrSchemaVersion = errors.New("schema version mismatch")

// Header is the first line of a dump.
type Header struct {
	// Format is always "payport-dump".
	Format string `json:"format"`
	// FormatVersion is the version of the file format, 1.
	FormatVersion int `json:"format_version"`
	// PayportVersion is the version of the payport that wrote the dump.
	PayportVersion string `json:"payport_version"`
	// SchemaVersion is the source database's schema version.
	SchemaVersion int64 `json:"schema_version"`
	// Engine is the source's engine, "sqlite" or "postgres".
	Engine string `json:"engine"`
	// CreatedAt is when the export began, RFC 3339 in UTC.
	CreatedAt string `json:"created_at"`
	// KeyCheck, when set, is a check value of the source's server key (a
	// keyed hash of a fixed text; it reveals nothing of the key), so that
	// the importer can tell whether the target runs with the same key.
	KeyCheck string `json:"key_check,omitempty"`
}

// Meta is what Export writes into the header besides what it reads from
// the database.
type Meta struct {
	// PayportVersion is the version of the running payport.
	PayportVersion string
	// KeyCheck is Header.KeyCheck; "" when the server key is unknown.
	KeyCheck string
}

// TableRows is the number of rows of one table.
type TableRows struct {
	Table string // the name in dumps (SQLite's)
	Rows  int64
}

// Stats tell what an export or import copied.
type Stats struct {
	Header Header
	Tables []TableRows // every table, in dump order
	Rows   int64       // all of them
}

// tableDef describes one table: its names and how its rows are ordered
// and converted.
type tableDef struct {
	name        string   // in dumps and on SQLite
	pgName      string   // on PostgreSQL when it differs
	order       []string // the columns that order its rows (a unique key)
	sqliteOrder string   // an ORDER BY that replaces order on SQLite
	pgOrder     string   // and on PostgreSQL
	bools       []string // INTEGER 0/1 columns on SQLite, BOOLEAN on PostgreSQL
	engineOnly  []string // generated columns of one engine, never dumped
}

// tables are payport's tables at KnownSchemaVersion, in foreign-key order:
// every table comes after the tables it references.
var tables = []tableDef{
	{name: "merchants", order: []string{"id"}, bools: []string{"schedule_list_paged"}},
	{name: "api_keys", order: []string{"key_hash"}},
	{name: "pg_settings", pgName: "merchant_pg_settings", order: []string{"id"}, bools: []string{"nonauth", "vbank"}},
	// Insertion order breaks ties between REST tokens issued in the same
	// second: SQLite's rowid, PostgreSQL's seq. Rows are dumped in it and
	// inserted in it, so it survives the move.
	{name: "api_tokens", sqliteOrder: "rowid", pgOrder: `"seq"`, engineOnly: []string{"seq"}},
	{name: "merchant_uids", order: []string{"merchant_id", "merchant_uid"}},
	{name: "payments", order: []string{"id"}, bools: []string{"escrow", "cash_receipt_issued"}},
	{name: "payment_cancels", order: []string{"id"}},
	{name: "payment_balances", order: []string{"id"}},
	{name: "customers", order: []string{"merchant_id", "customer_uid"}},
	{name: "schedules", order: []string{"id"}},
	{name: "webhook_events", order: []string{"id"}},
	{name: "webhook_attempts", order: []string{"id"}},
}

// Tables returns the names of the tables a dump holds, in the order it
// holds them (foreign-key order).
func Tables() []string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	return names
}

// on returns the table's name on engine.
func (t tableDef) on(engine string) string {
	if engine == Postgres && t.pgName != "" {
		return t.pgName
	}
	return t.name
}

func checkEngine(engine string) error {
	if engine != SQLite && engine != Postgres {
		return fmt.Errorf("dump: unknown engine %q (want %q or %q)", engine, SQLite, Postgres)
	}
	return nil
}

// kind is how a column's values are carried.
type kind int

const (
	kindInt   kind = iota + 1 // JSON number, exact int64
	kindBool                  // JSON true/false
	kindBytes                 // JSON string, standard base64
	kindText                  // JSON string
)

type column struct {
	name     string
	kind     kind
	identity bool // PostgreSQL identity or serial column
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// SchemaVersion returns the schema version of a payport database: the
// newest migration goose recorded, as the engines' own SchemaVersion
// methods report it (both engines number their schemas alike).
func SchemaVersion(ctx context.Context, db *sql.DB) (int64, error) {
	return schemaVersion(ctx, db)
}

func schemaVersion(ctx context.Context, q querier) (int64, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("dump: read the schema version (is this a migrated payport database?): %w", err)
	}
	return v.Int64, nil
}

// columns reads a table's columns on engine, in schema order, without the
// engine-only ones.
func columns(ctx context.Context, q querier, engine string, t tableDef) ([]column, error) {
	var query string
	if engine == SQLite {
		query = `SELECT name, upper(type), 0 FROM pragma_table_info(?) ORDER BY cid`
	} else {
		query = `SELECT column_name, data_type, (is_identity = 'YES' OR coalesce(column_default, '') LIKE 'nextval(%')
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`
	}
	rows, err := q.QueryContext(ctx, query, t.on(engine))
	if err != nil {
		return nil, fmt.Errorf("dump: columns of %s: %w", t.on(engine), err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var (
			c   column
			typ string
		)
		if err := rows.Scan(&c.name, &typ, &c.identity); err != nil {
			return nil, fmt.Errorf("dump: columns of %s: %w", t.on(engine), err)
		}
		if slices.Contains(t.engineOnly, c.name) {
			continue
		}
		if c.kind, err = kindOf(engine, t, c.name, typ); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dump: columns of %s: %w", t.on(engine), err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("dump: table %s does not exist (is the database migrated?)", t.on(engine))
	}
	return cols, nil
}

// kindOf maps a column's declared (SQLite) or data (PostgreSQL) type.
func kindOf(engine string, t tableDef, name, typ string) (kind, error) {
	switch typ {
	case "INTEGER":
		if slices.Contains(t.bools, name) {
			return kindBool, nil
		}
		return kindInt, nil
	case "bigint", "integer", "smallint":
		return kindInt, nil
	case "boolean":
		return kindBool, nil
	case "BLOB", "bytea":
		return kindBytes, nil
	case "TEXT", "text", "character varying":
		return kindText, nil
	}
	return 0, fmt.Errorf("dump: %s.%s on %s has type %q, which dumps do not carry", t.on(engine), name, engine, typ)
}

// quote returns a quoted SQL identifier (the same on both engines).
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// orderBy returns the ORDER BY of a table's rows on engine. Text keys sort
// bytewise on PostgreSQL too (COLLATE "C", SQLite's BINARY), so both
// engines dump the same rows in the same order.
func orderBy(engine string, t tableDef, cols []column) string {
	if engine == SQLite && t.sqliteOrder != "" {
		return t.sqliteOrder
	}
	if engine == Postgres && t.pgOrder != "" {
		return t.pgOrder
	}
	parts := make([]string, len(t.order))
	for i, name := range t.order {
		parts[i] = quote(name)
		if engine == Postgres {
			for _, c := range cols {
				if c.name == name && c.kind == kindText {
					parts[i] += ` COLLATE "C"`
				}
			}
		}
	}
	return strings.Join(parts, ", ")
}

// Export writes every row of every table of src, a payport database on
// engine ("sqlite" or "postgres"), to w as a dump (see the package
// documentation), and returns what it wrote. It reads in one read-only
// transaction, a consistent snapshot (REPEATABLE READ on PostgreSQL), so
// it may run while payport serves. A database at a schema version other
// than KnownSchemaVersion is refused.
func Export(ctx context.Context, src *sql.DB, engine string, w io.Writer, meta Meta) (Stats, error) {
	if err := checkEngine(engine); err != nil {
		return Stats{}, err
	}
	opts := &sql.TxOptions{ReadOnly: true}
	if engine == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := src.BeginTx(ctx, opts)
	if err != nil {
		return Stats{}, fmt.Errorf("dump: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	version, err := schemaVersion(ctx, tx)
	if err != nil {
		return Stats{}, err
	}
	switch {
	case version < KnownSchemaVersion:
		return Stats{}, fmt.Errorf("%w: the database has schema version %d and this payport exports version %d: migrate it first (payport migrate)", ErrSchemaVersion, version, KnownSchemaVersion)
	case version > KnownSchemaVersion:
		return Stats{}, fmt.Errorf("%w: the database has schema version %d, newer than this payport knows (%d): export it with the payport that migrated it", ErrSchemaVersion, version, KnownSchemaVersion)
	}
	st := Stats{Header: Header{
		Format: Format, FormatVersion: FormatVersion, PayportVersion: meta.PayportVersion,
		SchemaVersion: version, Engine: engine, CreatedAt: time.Now().UTC().Format(time.RFC3339), KeyCheck: meta.KeyCheck,
	}}
	bw := bufio.NewWriterSize(w, 64<<10)
	head, err := json.Marshal(st.Header)
	if err != nil {
		return Stats{}, fmt.Errorf("dump: header: %w", err)
	}
	if _, err := bw.Write(append(head, '\n')); err != nil {
		return Stats{}, fmt.Errorf("dump: write: %w", err)
	}
	counts := make(map[string]int64, len(tables))
	for _, t := range tables {
		n, err := exportTable(ctx, tx, engine, t, bw)
		if err != nil {
			return Stats{}, err
		}
		counts[t.name] = n
		st.Tables = append(st.Tables, TableRows{Table: t.name, Rows: n})
		st.Rows += n
	}
	end, err := json.Marshal(endLine{End: &endInfo{Rows: st.Rows, Tables: counts}})
	if err != nil {
		return Stats{}, fmt.Errorf("dump: end line: %w", err)
	}
	if _, err := bw.Write(append(end, '\n')); err != nil {
		return Stats{}, fmt.Errorf("dump: write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return Stats{}, fmt.Errorf("dump: write: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Stats{}, fmt.Errorf("dump: end the read transaction: %w", err)
	}
	return st, nil
}

// endLine is the last line of a dump.
type endLine struct {
	End *endInfo `json:"end"`
}

type endInfo struct {
	Rows   int64            `json:"rows"`
	Tables map[string]int64 `json:"tables"`
}

// exportTable writes the rows of one table and returns how many.
func exportTable(ctx context.Context, tx *sql.Tx, engine string, t tableDef, w *bufio.Writer) (int64, error) {
	cols, err := columns(ctx, tx, engine, t)
	if err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quote(c.name)
	}
	query := "SELECT " + strings.Join(names, ", ") + " FROM " + quote(t.on(engine)) + " ORDER BY " + orderBy(engine, t, cols)
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return 0, fmt.Errorf("dump: read %s: %w", t.on(engine), err)
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	prefix := `{"table":` + string(appendString(nil, t.name)) + `,"row":{`
	var n int64
	var line []byte
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("dump: read %s: %w", t.on(engine), err)
		}
		n++
		line = append(line[:0], prefix...)
		for i, c := range cols {
			if i > 0 {
				line = append(line, ',')
			}
			line = appendString(line, c.name)
			line = append(line, ':')
			if line, err = appendValue(line, c, vals[i]); err != nil {
				return n, fmt.Errorf("dump: %s row %d: column %s: %w", t.on(engine), n, c.name, err)
			}
		}
		line = append(line, "}}\n"...)
		if _, err := w.Write(line); err != nil {
			return n, fmt.Errorf("dump: write: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("dump: read %s: %w", t.on(engine), err)
	}
	return n, nil
}

// appendValue appends a column value as the dump carries it.
func appendValue(b []byte, c column, v any) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	switch c.kind {
	case kindInt:
		switch x := v.(type) {
		case int64:
			return strconv.AppendInt(b, x, 10), nil
		case int32:
			return strconv.AppendInt(b, int64(x), 10), nil
		}
	case kindBool:
		switch x := v.(type) {
		case bool:
			return strconv.AppendBool(b, x), nil
		case int64:
			if x == 0 || x == 1 {
				return strconv.AppendBool(b, x == 1), nil
			}
			return nil, fmt.Errorf("flag holds %d, not 0 or 1", x)
		}
	case kindBytes:
		switch x := v.(type) {
		case []byte:
			return appendBase64(b, x), nil
		case string: // text stored in a BLOB column (SQLite)
			return appendBase64(b, []byte(x)), nil
		}
	case kindText:
		switch x := v.(type) {
		case string:
			if !utf8.ValidString(x) {
				return nil, errors.New("text is not valid UTF-8")
			}
			return appendString(b, x), nil
		case []byte:
			if !utf8.Valid(x) {
				return nil, errors.New("text is not valid UTF-8")
			}
			return appendString(b, string(x)), nil
		}
	}
	return nil, fmt.Errorf("unexpected value of type %T", v)
}

func appendBase64(b, data []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}

// appendString appends s as a JSON string, escaping only what JSON
// requires (and U+2028, U+2029), so that text such as "<" stays readable.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// dumpLine is a row line or the end line of a dump.
type dumpLine struct {
	Table string         `json:"table"`
	Row   map[string]any `json:"row"`
	End   *endInfo       `json:"end"`
}

// readHeader decodes and checks the first value of a dump.
func readHeader(dec *json.Decoder) (Header, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return Header{}, errors.New("dump: the input is empty, not a payport dump")
		}
		return Header{}, fmt.Errorf("dump: line 1: not a payport dump: %w", err)
	}
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil || h.Format != Format {
		return Header{}, fmt.Errorf("dump: line 1: not a payport dump (no %q header)", Format)
	}
	if h.FormatVersion != FormatVersion {
		return Header{}, fmt.Errorf("dump: format version %d is not supported by this payport (it reads version %d)", h.FormatVersion, FormatVersion)
	}
	if err := checkEngine(h.Engine); err != nil {
		return Header{}, fmt.Errorf("dump: header: %w", err)
	}
	return h, nil
}

// Import reads a dump from r into dst, a migrated, empty payport database
// on engine, in one transaction, and returns what it wrote. check, when
// not nil, is called with the header before dst is touched; its error
// stops the import. Import refuses a dump of another schema version than
// dst's, and a dst in which any table has rows (ErrNotEmpty, naming the
// table). It keeps every id and, on PostgreSQL, moves each identity
// sequence past the largest imported id. A truncated or damaged dump is
// refused and nothing is written.
func Import(ctx context.Context, dst *sql.DB, engine string, r io.Reader, check func(Header) error) (Stats, error) {
	if err := checkEngine(engine); err != nil {
		return Stats{}, err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber()
	h, err := readHeader(dec)
	if err != nil {
		return Stats{}, err
	}
	if check != nil {
		if err := check(h); err != nil {
			return Stats{}, err
		}
	}
	tx, err := dst.BeginTx(ctx, nil)
	if err != nil {
		return Stats{}, fmt.Errorf("dump: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	st, err := importTx(ctx, tx, engine, h, dec)
	if err != nil {
		return Stats{}, err
	}
	if err := tx.Commit(); err != nil {
		return Stats{}, fmt.Errorf("dump: commit: %w", err)
	}
	return st, nil
}

// target is a table of the import's database.
type target struct {
	def  tableDef
	cols []column
	stmt *sql.Stmt // prepared on its first row
	rows int64
}

func importTx(ctx context.Context, tx *sql.Tx, engine string, h Header, dec *json.Decoder) (Stats, error) {
	if engine == Postgres {
		// Two imports into one schema at once: the second waits, then
		// finds the first one's rows.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payport import ' || current_setting('search_path'), 0))`); err != nil {
			return Stats{}, fmt.Errorf("dump: take the import lock: %w", err)
		}
	}
	version, err := schemaVersion(ctx, tx)
	if err != nil {
		return Stats{}, err
	}
	if version != h.SchemaVersion {
		return Stats{}, fmt.Errorf("%w: the dump has schema version %d and the target database %d: import with the payport version that wrote the dump (%s), or migrate the source to version %d and export it again",
			ErrSchemaVersion, h.SchemaVersion, version, h.PayportVersion, version)
	}
	targets := make([]*target, len(tables))
	index := make(map[string]int, len(tables))
	for i, t := range tables {
		cols, err := columns(ctx, tx, engine, t)
		if err != nil {
			return Stats{}, err
		}
		var one int
		err = tx.QueryRowContext(ctx, "SELECT 1 FROM "+quote(t.on(engine))+" LIMIT 1").Scan(&one)
		switch {
		case err == nil:
			return Stats{}, fmt.Errorf("%w: table %s has rows; import needs a freshly migrated, empty database (payport migrate creates one; payport serve would add a demo merchant)", ErrNotEmpty, t.on(engine))
		case !errors.Is(err, sql.ErrNoRows):
			return Stats{}, fmt.Errorf("dump: read %s: %w", t.on(engine), err)
		}
		targets[i] = &target{def: t, cols: cols}
		index[t.name] = i
	}
	defer func() {
		for _, t := range targets {
			if t.stmt != nil {
				t.stmt.Close()
			}
		}
	}()

	current := 0 // tables come in foreign-key order
	var end *endInfo
	for n := 2; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return Stats{}, fmt.Errorf("dump: the input ends at line %d without its end line: the dump is truncated", n)
		} else if err != nil {
			return Stats{}, fmt.Errorf("dump: line %d: %w", n, err)
		}
		var l dumpLine
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		d.DisallowUnknownFields()
		if err := d.Decode(&l); err != nil {
			return Stats{}, fmt.Errorf("dump: line %d: %w", n, err)
		}
		if l.End != nil {
			if l.Table != "" || l.Row != nil {
				return Stats{}, fmt.Errorf("dump: line %d: an end line carries no row", n)
			}
			end = l.End
			break
		}
		i, ok := index[l.Table]
		switch {
		case l.Table == "" || l.Row == nil:
			return Stats{}, fmt.Errorf("dump: line %d: neither a row (table and row) nor the end line", n)
		case !ok:
			return Stats{}, fmt.Errorf("dump: line %d: unknown table %q", n, l.Table)
		case i < current:
			return Stats{}, fmt.Errorf("dump: line %d: table %s after %s: rows must come in foreign-key order", n, l.Table, tables[current].name)
		}
		current = i
		if err := insertRow(ctx, tx, engine, targets[i], l.Row); err != nil {
			return Stats{}, fmt.Errorf("dump: line %d: %w", n, err)
		}
	}
	if dec.More() {
		return Stats{}, errors.New("dump: data after the end line")
	}

	st := Stats{Header: h}
	for _, t := range targets {
		if want := end.Tables[t.def.name]; want != t.rows {
			return Stats{}, fmt.Errorf("dump: table %s has %d rows but the end line counts %d: the dump is damaged", t.def.name, t.rows, want)
		}
		st.Tables = append(st.Tables, TableRows{Table: t.def.name, Rows: t.rows})
		st.Rows += t.rows
	}
	for name := range end.Tables {
		if _, ok := index[name]; !ok {
			return Stats{}, fmt.Errorf("dump: the end line counts rows of unknown table %q", name)
		}
	}
	if st.Rows != end.Rows {
		return Stats{}, fmt.Errorf("dump: %d rows read but the end line counts %d: the dump is damaged", st.Rows, end.Rows)
	}
	if engine == Postgres {
		if err := resetSequences(ctx, tx, targets); err != nil {
			return Stats{}, err
		}
	}
	return st, nil
}

// insertRow converts a dumped row to the target's column types and
// inserts it.
func insertRow(ctx context.Context, tx *sql.Tx, engine string, t *target, row map[string]any) error {
	name := t.def.on(engine)
	for k := range row {
		if !slices.ContainsFunc(t.cols, func(c column) bool { return c.name == k }) {
			return fmt.Errorf("table %s has no column %q", name, k)
		}
	}
	args := make([]any, len(t.cols))
	for i, c := range t.cols {
		v, ok := row[c.name]
		if !ok {
			return fmt.Errorf("the %s row lacks column %s", t.def.name, c.name)
		}
		var err error
		if args[i], err = importValue(engine, c, v); err != nil {
			return fmt.Errorf("%s column %s: %w", t.def.name, c.name, err)
		}
	}
	if t.stmt == nil {
		names := make([]string, len(t.cols))
		marks := make([]string, len(t.cols))
		identity := false
		for i, c := range t.cols {
			names[i] = quote(c.name)
			marks[i] = "?"
			if engine == Postgres {
				marks[i] = "$" + strconv.Itoa(i+1)
			}
			identity = identity || c.identity
		}
		query := "INSERT INTO " + quote(name) + " (" + strings.Join(names, ", ") + ")"
		if identity {
			query += " OVERRIDING SYSTEM VALUE" // keep the dumped ids
		}
		query += " VALUES (" + strings.Join(marks, ", ") + ")"
		stmt, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return fmt.Errorf("prepare the insert into %s: %w", name, err)
		}
		t.stmt = stmt
	}
	if _, err := t.stmt.ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("insert into %s: %w", name, err)
	}
	t.rows++
	return nil
}

// importValue converts a decoded JSON value (UseNumber) to the argument of
// a column of the target engine.
func importValue(engine string, c column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.kind {
	case kindInt:
		switch x := v.(type) {
		case json.Number:
			n, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s is not a 64-bit integer", x)
			}
			return n, nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		}
		return nil, fmt.Errorf("want an integer, got %T", v)
	case kindBool:
		var b bool
		switch x := v.(type) {
		case bool:
			b = x
		case json.Number:
			if x != "0" && x != "1" {
				return nil, fmt.Errorf("want true or false, got %s", x)
			}
			b = x == "1"
		default:
			return nil, fmt.Errorf("want true or false, got %T", v)
		}
		if engine == SQLite {
			if b {
				return int64(1), nil
			}
			return int64(0), nil
		}
		return b, nil
	case kindBytes:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a base64 string, got %T", v)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("not standard base64: %w", err)
		}
		return b, nil
	case kindText:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", v)
		}
		return s, nil
	}
	return nil, fmt.Errorf("unknown column kind %d", c.kind)
}

// resetSequences moves every identity (or serial) sequence whose column was
// imported past the column's largest value, so that the next generated id
// follows the imported ones (1 for an empty table).
func resetSequences(ctx context.Context, tx *sql.Tx, targets []*target) error {
	for _, t := range targets {
		name := t.def.on(Postgres)
		for _, c := range t.cols {
			if !c.identity {
				continue
			}
			query := `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(` + quote(c.name) + `), 0) + 1, false) FROM ` + quote(name)
			if _, err := tx.ExecContext(ctx, query, quote(name), c.name); err != nil {
				return fmt.Errorf("dump: reset the sequence of %s.%s: %w", name, c.name, err)
			}
		}
	}
	return nil
}
