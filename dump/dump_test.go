package dump

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/payport/payport"
	"github.com/payport/payport/gateway/sandbox"
	"github.com/payport/payport/postgres"
	"github.com/payport/payport/postgres/pgtest"
	"github.com/payport/payport/service"
	"github.com/payport/payport/sqlite"
	"github.com/payport/payport/webhook"
)

var testKey = []byte(strings.Repeat("dump-test-key-", 3))

// fixture is what populate created: enough to check the copy through the
// service.
type fixture struct {
	impKey, impSecret, apiKey string
	accessToken               string
	impUIDs                   []string
}

// populate fills every table of store through the service: a merchant
// (with its API key and PG settings, one with a PG api key), tokens of
// both APIs, sandbox payments with partial and full cancels, a payco
// payment (balance history), a one-time payment keeping a billing key, a
// schedule executed on the advanced test clock and one still scheduled,
// and webhooks delivered once (attempts).
func populate(t *testing.T, store payport.Store) fixture {
	t.Helper()
	ctx := context.Background()
	svc, err := service.New(store, service.Config{Gateway: sandbox.New(), SecretKey: testKey, PublicURL: "http://payport.test"})
	if err != nil {
		t.Fatal(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "fail") {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(receiver.Close)

	cred, err := svc.CreateMerchant(ctx, "Acme <dump> \"quoted\" 상점\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateMerchant(ctx, "Other"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddPGSetting(ctx, cred.IMPKey, "html5_inicis", ""); err != nil {
		t.Fatal(err)
	}
	hook, paged := receiver.URL+"/hooks", true
	m, err := svc.UpdateMerchantSettings(ctx, cred.IMPKey, service.MerchantSettings{NotificationURL: &hook, ScheduleListPaged: &paged})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := svc.GetToken(ctx, cred.IMPKey, cred.IMPSecret)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := svc.SignIn(ctx, cred.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Regenerate(ctx, pair.RefreshToken); err != nil {
		t.Fatal(err)
	}

	f := fixture{impKey: cred.IMPKey, impSecret: cred.IMPSecret, apiKey: cred.APIKey, accessToken: tok.AccessToken}
	keep := func(p payport.Payment, err error) payport.Payment {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		f.impUIDs = append(f.impUIDs, p.IMPUID)
		return p
	}
	paid := keep(svc.CreateSandboxPayment(ctx, m, service.SandboxPaymentInput{Order: service.Order{MerchantUID: "order-1", Amount: "15000", Name: "Notebook", BuyerName: "홍길동", CustomData: `{"a":[1,2],"b":"<&>"}`}}))
	keep(svc.Cancel(ctx, m, service.CancelInput{IMPUID: paid.IMPUID, Amount: "5000", Reason: "partial", EnableWebhook: true}))
	keep(svc.CreateSandboxPayment(ctx, m, service.SandboxPaymentInput{Order: service.Order{MerchantUID: "order-2", Amount: "1000"}, Status: "failed"}))
	keep(svc.CreateSandboxPayment(ctx, m, service.SandboxPaymentInput{Order: service.Order{MerchantUID: "order-3", Amount: "2000"}, Status: "cancelled", CancelReason: "changed mind"}))
	payco := keep(svc.CreateSandboxPayment(ctx, m, service.SandboxPaymentInput{Order: service.Order{MerchantUID: "order-4", Amount: "30000"}, PGProvider: "payco",
		Balance: map[string]string{"primary": "20000", "secondary": "7000", "discount": "3000", "cash_receipt": "1000"}}))
	keep(svc.Cancel(ctx, m, service.CancelInput{IMPUID: payco.IMPUID, Reason: "full"}))
	keep(svc.OneTime(ctx, m, service.OneTimeInput{
		ChargeInput: service.ChargeInput{Order: service.Order{MerchantUID: "order-5", Amount: "30000", Name: "Annual plan", NoticeURL: receiver.URL + "/fail"}},
		Card:        service.CardInput{Card: payport.Card{Number: "4242-4242-4242-4242", Expiry: "2030-12", Birth: "900101"}},
		CustomerUID: "cust-1",
		PG:          "nice",
	}))
	now := svc.MerchantClock(m).Now
	soon, later := now+3600, now+40*86400
	if _, err := svc.Schedule(ctx, m, service.ScheduleInput{CustomerUID: "cust-1", PG: "nice", Schedules: []service.ScheduleItem{
		{ChargeInput: service.ChargeInput{Order: service.Order{MerchantUID: "sub-1", Amount: "9900", Name: "Monthly"}}, ScheduleAt: &soon},
		{ChargeInput: service.ChargeInput{Order: service.Order{MerchantUID: "sub-2", Amount: "9900", Name: "Monthly"}}, ScheduleAt: &later},
	}}); err != nil {
		t.Fatal(err)
	}
	hour := int64(3600)
	if _, err := svc.AdvanceClock(ctx, m, &hour); err != nil {
		t.Fatal(err)
	}
	if n, err := svc.RunDueSchedules(ctx, 10); err != nil || n != 1 {
		t.Fatalf("run due schedules: %d %v", n, err)
	}
	disp := &webhook.Dispatcher{Store: store, Secret: svc.WebhookSecret}
	if n, err := disp.DeliverOnce(ctx); err != nil || n < 3 {
		t.Fatalf("deliver webhooks: %d attempted, %v", n, err)
	}
	// The clock moved past the first token's expiry: this one is current.
	if tok, err = svc.GetToken(ctx, cred.IMPKey, cred.IMPSecret); err != nil || tok.AccessToken == f.accessToken {
		t.Fatalf("getToken after the clock moved: %+v %v", tok, err)
	}
	f.accessToken = tok.AccessToken
	return f
}

// openSQLite returns a fresh, migrated SQLite store and its file.
func openSQLite(t *testing.T) (*sqlite.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "payport.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, path
}

// rawSQLite opens a SQLite file as the import and export do.
func rawSQLite(t *testing.T, path string, readOnly bool) *sql.DB {
	t.Helper()
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"
	if readOnly {
		dsn += "&mode=ro"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// rowsOf reads a table in dump order as the driver returns it.
func rowsOf(t *testing.T, db *sql.DB, engine string, def tableDef) [][]any {
	t.Helper()
	ctx := context.Background()
	cols, err := columns(ctx, db, engine, def)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quote(c.name)
	}
	rows, err := db.QueryContext(ctx, "SELECT "+strings.Join(names, ", ")+" FROM "+quote(def.on(engine))+" ORDER BY "+orderBy(engine, def, cols))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func export(t *testing.T, db *sql.DB, engine string) (*bytes.Buffer, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := Export(context.Background(), db, engine, &buf, Meta{PayportVersion: "test", KeyCheck: "abc"})
	if err != nil {
		t.Fatalf("export %s: %v", engine, err)
	}
	return &buf, st
}

// body is a dump without its header line, which holds the time.
func body(t *testing.T, dump []byte) string {
	t.Helper()
	_, rest, ok := bytes.Cut(dump, []byte("\n"))
	if !ok {
		t.Fatalf("dump has no header line: %q", dump)
	}
	return string(rest)
}

// bigValue is above 2^53: a float64 round trip would change it.
const bigValue = 9007199254740993

// populatedSQLite returns a SQLite file populated through the service, the
// fixture, and a read-only handle on it.
func populatedSQLite(t *testing.T) (string, fixture, *sql.DB) {
	t.Helper()
	store, path := openSQLite(t)
	f := populate(t, store)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	rw := rawSQLite(t, path, false)
	if _, err := rw.Exec(`UPDATE webhook_attempts SET duration_ms = ? WHERE id = 1`, int64(bigValue)); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	return path, f, rawSQLite(t, path, true)
}

func TestRoundTrip_SQLiteToSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srcPath, f, src := populatedSQLite(t)
	dump, st := export(t, src, SQLite)
	for _, tr := range st.Tables {
		if tr.Rows == 0 {
			t.Errorf("table %s is empty in the source: the fixture must fill every table", tr.Table)
		}
	}
	if st.Header.Format != Format || st.Header.SchemaVersion != KnownSchemaVersion || st.Header.Engine != SQLite || st.Header.PayportVersion != "test" {
		t.Fatalf("header %+v", st.Header)
	}
	text := dump.String()
	for _, want := range []string{`"duration_ms":9007199254740993`, `"schedule_list_paged":true`, `"nonauth":true`, `"escrow":false`, `"api_key_hash":null`, `"table":"pg_settings"`,
		`"name":"Acme <dump> \"quoted\" 상점"`, `"custom_data":"{\"a\":[1,2],\"b\":\"<&>\"}"`} {
		if !strings.Contains(text, want) {
			t.Errorf("dump lacks %s", want)
		}
	}

	dstStore, dstPath := openSQLite(t)
	dstStore.Close()
	dst := rawSQLite(t, dstPath, false)
	ist, err := Import(ctx, dst, SQLite, bytes.NewReader(dump.Bytes()), func(h Header) error {
		if h.KeyCheck != "abc" {
			t.Errorf("check saw header %+v", h)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if !reflect.DeepEqual(ist.Tables, st.Tables) || ist.Rows != st.Rows {
		t.Fatalf("import stats %+v, export stats %+v", ist, st)
	}
	for _, def := range tables {
		if got, want := rowsOf(t, dst, SQLite, def), rowsOf(t, src, SQLite, def); !reflect.DeepEqual(got, want) {
			t.Errorf("table %s differs after the round trip:\n got %v\nwant %v", def.name, got, want)
		}
	}
	again, _ := export(t, dst, SQLite)
	if body(t, again.Bytes()) != body(t, dump.Bytes()) {
		t.Errorf("the imported database exports differently")
	}

	// The copy serves the source's credentials and data (same server key).
	checkService(t, srcPath, dstPath, f)
}

// checkService compares the two databases through the service: the same
// token for the same key pair, the same payments.
func checkService(t *testing.T, srcPath, dstPath string, f fixture) {
	t.Helper()
	ctx := context.Background()
	open := func(path string) *service.Service {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svc, err := service.New(db, service.Config{Gateway: sandbox.New(), SecretKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	srcSvc, dstSvc := open(srcPath), open(dstPath)
	tok, err := dstSvc.GetToken(ctx, f.impKey, f.impSecret)
	if err != nil || tok.AccessToken != f.accessToken {
		t.Fatalf("getToken on the copy: %+v %v, want the source's current token %s", tok, err, f.accessToken)
	}
	if _, err := dstSvc.SignIn(ctx, f.apiKey); err != nil {
		t.Fatalf("sign in with the API key on the copy: %v", err)
	}
	m, err := dstSvc.Authenticate(ctx, tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	srcM, err := srcSvc.MerchantByIMPKey(ctx, f.impKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range f.impUIDs {
		got, err := dstSvc.Payment(ctx, m, uid)
		if err != nil {
			t.Fatalf("payment %s on the copy: %v", uid, err)
		}
		want, _ := srcSvc.Payment(ctx, srcM, uid)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("payment %s:\n got %+v\nwant %+v", uid, got, want)
		}
	}
	sc, err := dstSvc.ScheduleByMerchantUID(ctx, m, "sub-1")
	if err != nil || sc.Status != payport.ScheduleExecuted {
		t.Errorf("executed schedule on the copy: %+v %v", sc, err)
	}
}

func TestImport_RefusesANonEmptyTarget(t *testing.T) {
	t.Parallel()
	_, _, src := populatedSQLite(t)
	dump, _ := export(t, src, SQLite)
	store, path := openSQLite(t)
	store.Close()
	dst := rawSQLite(t, path, false)
	if _, err := Import(context.Background(), dst, SQLite, bytes.NewReader(dump.Bytes()), nil); err != nil {
		t.Fatal(err)
	}
	_, err := Import(context.Background(), dst, SQLite, bytes.NewReader(dump.Bytes()), nil)
	if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "table merchants has rows") {
		t.Fatalf("second import: %v", err)
	}
}

// emptyTarget returns a migrated, empty SQLite database.
func emptyTarget(t *testing.T) *sql.DB {
	t.Helper()
	store, path := openSQLite(t)
	store.Close()
	return rawSQLite(t, path, false)
}

func assertEmpty(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, def := range tables {
		if rows := rowsOf(t, db, SQLite, def); len(rows) != 0 {
			t.Fatalf("table %s has %d rows after a refused import", def.name, len(rows))
		}
	}
}

func TestImport_RefusesBrokenDumps(t *testing.T) {
	t.Parallel()
	_, _, src := populatedSQLite(t)
	dump, _ := export(t, src, SQLite)
	lines := strings.SplitAfter(strings.TrimSuffix(dump.String(), "\n"), "\n")
	header, rows, end := lines[0], lines[1:len(lines)-1], lines[len(lines)-1]
	join := func(parts ...[]string) string { return strings.Join(slices.Concat(parts...), "") }
	var h map[string]any
	if err := json.Unmarshal([]byte(header), &h); err != nil {
		t.Fatal(err)
	}
	withHeader := func(k string, v any) string {
		c := map[string]any{}
		for k, v := range h {
			c[k] = v
		}
		c[k] = v
		b, _ := json.Marshal(c)
		return string(b) + "\n"
	}
	firstKey := slices.IndexFunc(rows, func(r string) bool { return !strings.HasPrefix(r, `{"table":"merchants"`) })
	outOfOrder := slices.Concat(rows[:firstKey+1], rows[:1]) // a merchant after an API key
	cases := []struct {
		name, input, want string
		is                error
	}{
		{"empty", "", "the input is empty", nil},
		{"not a dump", "{\"hello\":1}\n", "not a payport dump", nil},
		{"other format version", withHeader("format_version", 2) + join(rows) + end, "format version 2 is not supported", nil},
		{"other schema version", withHeader("schema_version", KnownSchemaVersion-1) + join(rows) + end, "the dump has schema version 2 and the target database 3", ErrSchemaVersion},
		{"truncated", header + join(rows[:len(rows)-3]), "without its end line: the dump is truncated", nil},
		{"row lost", header + join(rows[:len(rows)-1]) + end, "rows but the end line counts", nil},
		{"out of order", header + join(outOfOrder) + end, "table merchants after api_keys: rows must come in foreign-key order", nil},
		{"unknown table", header + `{"table":"refunds","row":{"id":1}}` + "\n" + end, `unknown table "refunds"`, nil},
		{"unknown column", header + strings.Replace(rows[0], `"name":`, `"nick":`, 1) + end, `table merchants has no column "nick"`, nil},
		{"inexact integer", header + strings.Replace(rows[0], `"id":1,`, `"id":1.5,`, 1) + end, "1.5 is not a 64-bit integer", nil},
		{"bad base64", header + strings.Replace(rows[0], `"imp_secret_hash":"`, `"imp_secret_hash":"*`, 1) + end, "not standard base64", nil},
		{"after the end", header + join(rows) + end + rows[0], "data after the end line", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dst := emptyTarget(t)
			_, err := Import(context.Background(), dst, SQLite, strings.NewReader(c.input), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Fatalf("import: %v, want %q", err, c.want)
			}
			assertEmpty(t, dst)
		})
	}
	t.Run("check refuses", func(t *testing.T) {
		dst := emptyTarget(t)
		stop := errors.New("other server key")
		if _, err := Import(context.Background(), dst, SQLite, bytes.NewReader(dump.Bytes()), func(Header) error { return stop }); !errors.Is(err, stop) {
			t.Fatalf("import: %v", err)
		}
		assertEmpty(t, dst)
	})
}

func TestExport_RefusesAnUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	db := rawSQLite(t, filepath.Join(t.TempDir(), "empty.db"), false)
	if _, err := Export(context.Background(), db, SQLite, &bytes.Buffer{}, Meta{}); err == nil || !strings.Contains(err.Error(), "migrated payport database") {
		t.Fatalf("export of an empty file: %v", err)
	}
	if _, err := db.Exec(`CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL, tstamp TIMESTAMP)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1), (2, 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), db, SQLite, &bytes.Buffer{}, Meta{}); !errors.Is(err, ErrSchemaVersion) || !strings.Contains(err.Error(), "payport migrate") {
		t.Fatalf("export of version 2: %v", err)
	}
	if _, err := Export(context.Background(), db, "mysql", &bytes.Buffer{}, Meta{}); err == nil {
		t.Fatal("export accepted an unknown engine")
	}
}

// A new migration must update this package: its schema version and tables.
func TestKnownSchemaVersionAndTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, path := openSQLite(t)
	defer store.Close()
	v, err := store.SchemaVersion(ctx)
	if err != nil || v != KnownSchemaVersion {
		t.Fatalf("SQLite schema version %d (%v), dump knows %d: update dump.KnownSchemaVersion and dump.tables", v, err, KnownSchemaVersion)
	}
	db := rawSQLite(t, path, true)
	if got, err := SchemaVersion(ctx, db); err != nil || got != v {
		t.Fatalf("dump.SchemaVersion %d (%v), the engine's %d", got, err, v)
	}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name string
		_ = rows.Scan(&name)
		got = append(got, name)
	}
	want := slices.Sorted(slices.Values(Tables()))
	if !slices.Equal(got, want) {
		t.Fatalf("SQLite tables %v, dump copies %v", got, want)
	}
}

// openPostgres returns a fresh, migrated PostgreSQL schema as a store and
// as a *sql.DB.
func openPostgres(t *testing.T) (*postgres.DB, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	u := pgtest.URL(t)
	store, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return store, db
}

// SQLite → PostgreSQL → SQLite: every engine exports the same rows, and
// PostgreSQL's sequences continue after the imported ids.
func TestRoundTrip_ThroughPostgreSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pgStore, pg := openPostgres(t) // skips without PostgreSQL
	_, f, src := populatedSQLite(t)
	dump, st := export(t, src, SQLite)

	if v, err := pgStore.SchemaVersion(ctx); err != nil || v != KnownSchemaVersion {
		t.Fatalf("PostgreSQL schema version %d (%v), dump knows %d", v, err, KnownSchemaVersion)
	}
	ist, err := Import(ctx, pg, Postgres, bytes.NewReader(dump.Bytes()), nil)
	if err != nil {
		t.Fatalf("import into PostgreSQL: %v", err)
	}
	if !reflect.DeepEqual(ist.Tables, st.Tables) {
		t.Fatalf("import stats %+v, export %+v", ist.Tables, st.Tables)
	}
	pgDump, pst := export(t, pg, Postgres)
	if pst.Header.Engine != Postgres || body(t, pgDump.Bytes()) != body(t, dump.Bytes()) {
		t.Fatalf("PostgreSQL exports other rows than SQLite:\n%s\n---\n%s", pgDump, dump)
	}
	if _, err := Import(ctx, pg, Postgres, bytes.NewReader(dump.Bytes()), nil); !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "table merchants has rows") {
		t.Fatalf("second import into PostgreSQL: %v", err)
	}

	// PostgreSQL → SQLite gives the original rows back.
	back := emptyTarget(t)
	if _, err := Import(ctx, back, SQLite, bytes.NewReader(pgDump.Bytes()), nil); err != nil {
		t.Fatalf("import the PostgreSQL dump into SQLite: %v", err)
	}
	for _, def := range tables {
		if got, want := rowsOf(t, back, SQLite, def), rowsOf(t, src, SQLite, def); !reflect.DeepEqual(got, want) {
			t.Errorf("table %s differs after SQLite → PostgreSQL → SQLite:\n got %v\nwant %v", def.name, got, want)
		}
	}

	// New rows get ids after the imported ones.
	svc, err := service.New(pgStore, service.Config{Gateway: sandbox.New(), SecretKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	var maxMerchant, maxPayment, maxEvent int64
	if err := pg.QueryRow(`SELECT (SELECT max(id) FROM merchants), (SELECT max(id) FROM payments), (SELECT max(id) FROM webhook_events)`).Scan(&maxMerchant, &maxPayment, &maxEvent); err != nil {
		t.Fatal(err)
	}
	cred, err := svc.CreateMerchant(ctx, "after the move")
	if err != nil || cred.MerchantID != maxMerchant+1 {
		t.Fatalf("new merchant: %+v %v, want id %d", cred, err, maxMerchant+1)
	}
	m, err := svc.MerchantByIMPKey(ctx, cred.IMPKey)
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.CreateSandboxPayment(ctx, m, service.SandboxPaymentInput{Order: service.Order{MerchantUID: "new-1", Amount: "100"}})
	if err != nil || p.ID != maxPayment+1 {
		t.Fatalf("new payment: %+v %v, want id %d", p, err, maxPayment+1)
	}
	// The source's merchant keeps working: the same token, and a refund
	// of an imported payment adds a cancel and a webhook event after the
	// imported ones.
	tok, err := svc.GetToken(ctx, f.impKey, f.impSecret)
	if err != nil || tok.AccessToken != f.accessToken {
		t.Fatalf("getToken on PostgreSQL: %+v %v, want %s", tok, err, f.accessToken)
	}
	srcM, err := svc.Authenticate(ctx, tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	refunded, err := svc.Cancel(ctx, srcM, service.CancelInput{IMPUID: f.impUIDs[0], Amount: "1000", EnableWebhook: true})
	if err != nil {
		t.Fatalf("refund an imported payment: %v", err)
	}
	if last := refunded.CancelHistory[len(refunded.CancelHistory)-1]; last.ID <= 1 {
		t.Fatalf("the new cancel has id %d", last.ID)
	}
	var newEvent int64
	if err := pg.QueryRow(`SELECT max(id) FROM webhook_events`).Scan(&newEvent); err != nil || newEvent != maxEvent+1 {
		t.Fatalf("the new webhook event has id %d (%v), want %d", newEvent, err, maxEvent+1)
	}
}

// The flags this package converts are exactly PostgreSQL's BOOLEAN
// columns, and the tables are PostgreSQL's.
func TestTablesMatchPostgreSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pg := openPostgres(t)
	for _, def := range tables {
		cols, err := columns(ctx, pg, Postgres, def)
		if err != nil {
			t.Fatal(err)
		}
		var bools []string
		for _, c := range cols {
			if c.kind == kindBool {
				bools = append(bools, c.name)
			}
		}
		if !slices.Equal(bools, def.bools) {
			t.Errorf("table %s: PostgreSQL BOOLEAN columns %v, dump converts %v", def.on(Postgres), bools, def.bools)
		}
	}
	var n int
	if err := pg.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'goose_db_version'`).Scan(&n); err != nil || n != len(tables) {
		t.Fatalf("PostgreSQL has %d tables (%v), dump copies %d", n, err, len(tables))
	}
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "<&>", "quote \" back \\ slash", "nl\ncr\rtab\t", "\x00\x1f", "홍길동 \u2028\u2029", "emoji 😀"} {
		var got string
		if err := json.Unmarshal(appendString(nil, s), &got); err != nil || got != s {
			t.Errorf("appendString(%q) = %s → %q %v", s, appendString(nil, s), got, err)
		}
	}
}
