package httpapi_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payport/payport"
	"github.com/payport/payport/gateway/sandbox"
	"github.com/payport/payport/httpapi"
	"github.com/payport/payport/postgres"
	"github.com/payport/payport/postgres/pgtest"
	"github.com/payport/payport/scheduler"
	"github.com/payport/payport/service"
	"github.com/payport/payport/sqlite"
	"github.com/payport/payport/webhook"

	_ "github.com/jackc/pgx/v5/stdlib" // read the PostgreSQL database directly
	_ "modernc.org/sqlite"             // read the SQLite file directly
)

// testClock is a clock tests move by hand: no sleeping.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// bundle is one running payport: real SQLite in a temp dir, the real
// handler behind a real listener on a random loopback port.
type bundle struct {
	t      *testing.T
	url    string
	engine string // "sqlite" or "postgres"
	dsn    string // the SQLite file's path, or the PostgreSQL URL
	store  payport.Store
	svc    *service.Service
	clock  *testClock
	logs   *syncBuffer
}

// syncBuffer collects the request log.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

const testStart = 1_790_000_000 // 2026-09-21T14:13:20Z

func setup(t *testing.T) *bundle {
	t.Helper()
	t.Parallel()
	store, engine, dsn := openStore(t)
	clock := &testClock{t: time.Unix(testStart, 0)}
	svc, err := service.New(store, service.Config{Gateway: sandbox.New(), Clock: clock, SecretKey: bytes.Repeat([]byte("k"), 32), PublicURL: "http://payport.test"})
	if err != nil {
		t.Fatalf("service: %v", err)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Sandbox: true, Logger: logger}))
	t.Cleanup(srv.Close)
	return &bundle{t: t, url: srv.URL, engine: engine, dsn: dsn, store: store, svc: svc, clock: clock, logs: logs}
}

// openStore opens a fresh, migrated store on the engine named by
// PAYPORT_TEST_ENGINE: sqlite (default; a file in a temp dir) or postgres
// (a schema of its own in PAYPORT_TEST_POSTGRES_URL's database). It returns
// the engine's name and the DSN for reading the database directly.
func openStore(t *testing.T) (payport.Store, string, string) {
	t.Helper()
	ctx := context.Background()
	if os.Getenv("PAYPORT_TEST_ENGINE") == "postgres" {
		url := pgtest.URL(t)
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		return db, "postgres", url
	}
	path := filepath.Join(t.TempDir(), "payport.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db, "sqlite", path
}

// setupRunning is setup with the scheduler and the webhook dispatcher
// running in the background on the test clock, as `payport serve` runs
// them; they stop when the test ends.
func setupRunning(t *testing.T) *bundle {
	t.Helper()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	sched := scheduler.New(b.svc, nil)
	sched.Poll = 20 * time.Millisecond
	b.svc.OnSchedulesDue(sched.Notify)
	disp := &webhook.Dispatcher{Store: b.store, Clock: b.clock, Secret: b.svc.WebhookSecret, Poll: 20 * time.Millisecond}
	b.svc.OnWebhookDue(disp.Notify)
	var wg sync.WaitGroup
	wg.Go(func() { _ = sched.Run(ctx) })
	wg.Go(func() { _ = disp.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return b
}

// eventually polls cond until it holds or the deadline passes: the way to
// wait for background work without sleeping for a fixed time.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// merchant is a created merchant with its credentials and, once asked, a token.
type merchant struct {
	b    *bundle
	cred service.Credentials
	tok  string
}

func (b *bundle) merchant(name string) *merchant {
	b.t.Helper()
	cred, err := b.svc.CreateMerchant(context.Background(), name)
	if err != nil {
		b.t.Fatalf("create merchant: %v", err)
	}
	return &merchant{b: b, cred: cred}
}

// token gets (once) and returns a REST access token.
func (m *merchant) token() string {
	m.b.t.Helper()
	if m.tok == "" {
		res := m.b.do("POST", "/users/getToken", "", jsonBody{"imp_key": m.cred.IMPKey, "imp_secret": m.cred.IMPSecret})
		res.want(200, 0)
		m.tok = res.obj()["access_token"].(string)
	}
	return m.tok
}

func (m *merchant) get(path string) *result { return m.call("GET", path, nil) }

func (m *merchant) post(path string, body any) *result { return m.call("POST", path, body) }

// call sends an authenticated request. Tests that move clocks by hours
// outlive tokens, so a 401 on a cached token fetches a fresh one and
// retries once; tests of 401 itself use b.do.
func (m *merchant) call(method, path string, body any) *result {
	m.b.t.Helper()
	res := m.b.do(method, path, m.token(), body)
	if res.status == http.StatusUnauthorized {
		m.tok = ""
		res = m.b.do(method, path, m.token(), body)
	}
	return res
}

// exchangeHook, when set (by a test file's init), sees every request the
// suite sends through bundle.request with its body, and the response with
// its body, e.g. to validate both against the OpenAPI document.
var exchangeHook func(t *testing.T, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte)

// jsonBody is sent as application/json; url.Values as a form; string raw.
type jsonBody map[string]any

type result struct {
	t      *testing.T
	req    string // "METHOD path", for failure messages
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (b *bundle) do(method, path, token string, body any) *result {
	b.t.Helper()
	return b.request(method, path, body, map[string]string{"Authorization": bearer(token)})
}

func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

func (b *bundle) request(method, path string, body any, headers map[string]string) *result {
	b.t.Helper()
	var rd io.Reader
	ct := ""
	switch v := body.(type) {
	case nil:
	case jsonBody:
		raw, _ := json.Marshal(v)
		rd, ct = bytes.NewReader(raw), "application/json"
	case url.Values:
		rd, ct = strings.NewReader(v.Encode()), "application/x-www-form-urlencoded"
	case string:
		rd = strings.NewReader(v)
	default:
		b.t.Fatalf("unsupported body %T", body)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	if err != nil {
		b.t.Fatalf("request: %v", err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	var sent []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			sent, _ = io.ReadAll(rc)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if exchangeHook != nil {
		exchangeHook(b.t, req, sent, resp, raw)
	}
	res := &result{t: b.t, req: method + " " + path, status: resp.StatusCode, header: resp.Header, raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&res.body); err != nil {
		b.t.Fatalf("%s %s: response is not a JSON object: %v: %s", method, path, err, raw)
	}
	return res
}

// want asserts the HTTP status and envelope code, and the envelope shape:
// success has exactly code, message null and response; failure exactly
// code and a string message.
func (r *result) want(status, code int) *result {
	r.t.Helper()
	if r.status != status {
		r.t.Fatalf("%s: status = %d, want %d; body %s", r.req, r.status, status, r.raw)
	}
	if got := r.header.Get("Content-Type"); got != "application/json; charset=utf-8" {
		r.t.Fatalf("Content-Type = %q", got)
	}
	if r.body["code"] != json.Number(itoa(code)) {
		r.t.Fatalf("%s: code = %v, want %d; body %s", r.req, r.body["code"], code, r.raw)
	}
	if code == 0 {
		wantKeys(r.t, r.body, "code", "message", "response")
		if r.body["message"] != nil {
			r.t.Fatalf("message = %v, want null", r.body["message"])
		}
	} else {
		wantKeys(r.t, r.body, "code", "message")
	}
	return r
}

// wantError asserts a failure envelope with exactly this message.
func (r *result) wantError(status, code int, message string) {
	r.t.Helper()
	r.want(status, code)
	if r.body["message"] != message {
		r.t.Fatalf("%s: message = %q, want %q", r.req, r.body["message"], message)
	}
}

func (r *result) obj() map[string]any {
	r.t.Helper()
	m, ok := r.body["response"].(map[string]any)
	if !ok {
		r.t.Fatalf("response is not an object: %s", r.raw)
	}
	return m
}

func (r *result) list() []any {
	r.t.Helper()
	l, ok := r.body["response"].([]any)
	if !ok {
		r.t.Fatalf("response is not an array: %s", r.raw)
	}
	return l
}

func wantKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	want := append([]string(nil), keys...)
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("keys = %v, want %v", got, want)
	}
}

// wantJSON compares a decoded value with the JSON text want, exactly.
func wantJSON(t *testing.T, got any, want string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(want))
	dec.UseNumber()
	var w any
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Fatalf("got  %s\nwant %s", g, want)
	}
}

// mask replaces m[field] by "<field>" after checking it matches pattern,
// so a record with random identifiers can be compared exactly.
func mask(t *testing.T, m map[string]any, field, pattern string) {
	t.Helper()
	s, ok := m[field].(string)
	if !ok || !regexp.MustCompile(`^(?:`+pattern+`)$`).MatchString(s) {
		t.Fatalf("%s = %#v, want a string matching %s", field, m[field], pattern)
	}
	m[field] = "<" + field + ">"
}

func itoa(n int) string { return strconv.Itoa(n) }

// rawDB opens the database directly, read-only where the engine allows,
// to look at what is stored.
func (b *bundle) rawDB() *sql.DB {
	b.t.Helper()
	driver, dsn := "sqlite", "file:"+b.dsn+"?mode=ro"
	if b.engine == "postgres" {
		driver, dsn = "pgx", b.dsn
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.t.Fatalf("open %s: %v", b.engine, err)
	}
	return db
}

// dump returns everything the database stores, as bytes to search: the
// SQLite file with its journals, or every PostgreSQL row as text.
func (b *bundle) dump() []byte {
	b.t.Helper()
	var data []byte
	if b.engine == "postgres" {
		db := b.rawDB()
		defer db.Close()
		rows, err := db.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
		if err != nil {
			b.t.Fatal(err)
		}
		var tables []string
		for rows.Next() {
			var name string
			_ = rows.Scan(&name)
			tables = append(tables, name)
		}
		rows.Close()
		for _, table := range tables {
			rows, err := db.Query(`SELECT t::text FROM "` + table + `" t`)
			if err != nil {
				b.t.Fatal(err)
			}
			for rows.Next() {
				var row string
				_ = rows.Scan(&row)
				data = append(data, row...)
			}
			rows.Close()
		}
		return data
	}
	for _, path := range []string{b.dsn, b.dsn + "-wal", b.dsn + "-journal"} {
		raw, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) && path != b.dsn {
			continue
		} else if err != nil {
			b.t.Fatal(err)
		}
		data = append(data, raw...)
	}
	return data
}

// outboxRow is a webhook outbox row as stored.
type outboxRow struct {
	WebhookID, URL, Type, IMPUID, MerchantUID, Status, CancellationID, State string
	MerchantID                                                               int64
}

// outbox reads the webhook outbox rows of the database, oldest first,
// straight from the database.
func (b *bundle) outbox() []outboxRow {
	b.t.Helper()
	db := b.rawDB()
	defer db.Close()
	rows, err := db.Query(`SELECT webhook_id, url, type, imp_uid, merchant_uid, status, cancellation_id, state, merchant_id FROM webhook_events ORDER BY id`)
	if err != nil {
		b.t.Fatalf("outbox: %v", err)
	}
	defer rows.Close()
	var out []outboxRow
	for rows.Next() {
		var r outboxRow
		if err := rows.Scan(&r.WebhookID, &r.URL, &r.Type, &r.IMPUID, &r.MerchantUID, &r.Status, &r.CancellationID, &r.State, &r.MerchantID); err != nil {
			b.t.Fatalf("outbox: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// count returns the number of rows of a table, straight from the database.
func (b *bundle) count(table string) int {
	b.t.Helper()
	db := b.rawDB()
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		b.t.Fatalf("count %s: %v", table, err)
	}
	return n
}
