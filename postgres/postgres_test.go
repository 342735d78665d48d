package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payport/payport"
	"github.com/payport/payport/postgres"
	"github.com/payport/payport/postgres/pgtest"
	"github.com/payport/payport/storetest"
)

var ctx = context.Background()

// open opens a store on url (a node), closed at the end of the test.
func open(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// migrated opens a migrated store on a fresh schema and returns it with its URL.
func migrated(t *testing.T) (*postgres.DB, string) {
	t.Helper()
	url := pgtest.URL(t)
	db := open(t, url)
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db, url
}

// exec runs statements on a connection of its own, outside any store.
func exec(t *testing.T, url string, sql ...string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range sql {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// count returns the result of a count(*) query.
func count(t *testing.T, url, query string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestConformance(t *testing.T) {
	pgtest.BaseURL(t) // skip (or fail in CI) once, not in every case
	storetest.Run(t, func(t *testing.T) payport.Store {
		db, _ := migrated(t)
		return db
	})
}

// latestVersion is the version of the newest embedded migration.
const latestVersion = 3

func TestMigrate_TwiceIsNoop(t *testing.T) {
	t.Parallel()
	db, url := migrated(t)
	v, err := db.SchemaVersion(ctx)
	if err != nil || v != latestVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, latestVersion)
	}
	rows := count(t, url, `SELECT count(*) FROM goose_db_version`)
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrating twice: %v", err)
	}
	if v2, err := db.SchemaVersion(ctx); err != nil || v2 != v {
		t.Fatalf("schema version after a second migrate: %d, %v", v2, err)
	}
	if got := count(t, url, `SELECT count(*) FROM goose_db_version`); got != rows {
		t.Fatalf("goose_db_version rows: %d, then %d", rows, got)
	}
	// Every table and goose's own live in the test's schema, none in public.
	if n := count(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 13 {
		t.Fatalf("%d tables in the schema, want 12 and goose_db_version", n)
	}
}

func TestSchemaVersion_UnmigratedIsZero(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	db := open(t, url)
	v, err := db.SchemaVersion(ctx)
	if err != nil || v != 0 {
		t.Fatalf("schema version of an empty schema: %d, %v", v, err)
	}
	if n := count(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 0 {
		t.Fatalf("SchemaVersion created %d tables", n)
	}
}

func TestMigrate_RefusesNewerSchema(t *testing.T) {
	t.Parallel()
	db, url := migrated(t)
	exec(t, url, fmt.Sprintf(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (%d, true)`, latestVersion+1))
	err := db.Migrate(ctx)
	if !errors.Is(err, postgres.ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade payport") {
		t.Fatalf("migrate over a newer schema: %v", err)
	}
	if v, err := db.SchemaVersion(ctx); err != nil || v != latestVersion+1 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	// The lock was released: another node is refused too, rather than hanging.
	other := open(t, url)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := other.Migrate(cctx); !errors.Is(err, postgres.ErrSchemaTooNew) {
		t.Fatalf("second node: %v", err)
	}
}

func TestMigrate_ConcurrentNodes(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	const nodes = 4
	dbs := make([]*postgres.DB, nodes)
	for i := range dbs {
		// One connection per pool: the migration lock must not need a second.
		dbs[i] = open(t, url+"&pool_max_conns=1")
	}
	errs := make([]error, nodes)
	var wg sync.WaitGroup
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Migrate(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("node %d: %v", i, err)
		}
	}
	if v, err := dbs[0].SchemaVersion(ctx); err != nil || v != latestVersion {
		t.Fatalf("schema version %d, %v", v, err)
	}
	if n := count(t, url, `SELECT count(*) FROM goose_db_version WHERE version_id = $1`, latestVersion); n != 1 {
		t.Fatalf("migration %d recorded %d times", latestVersion, n)
	}
}

func TestMigrate_CreatesMissingSchema(t *testing.T) {
	t.Parallel()
	base := pgtest.BaseURL(t)
	schema := fmt.Sprintf("t_new_%d", time.Now().UnixNano())
	t.Cleanup(func() { exec(t, base, "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	url := pgtest.WithSearchPath(base, schema)
	db := open(t, url)
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if n := count(t, base, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema); n != 13 {
		t.Fatalf("%d tables in the new schema", n)
	}
}

func TestOpen_ErrorMasksPassword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, mask string }{
		{"postgres://user:secret@127.0.0.1:1/x?sslmode=disable&connect_timeout=5", "user:xxxxx@"},
		{"postgresql://user:secret@127.0.0.1:1/x?sslmode=disable", "user:xxxxx@"},
		{"postgres://127.0.0.1:1/x?user=user&password=secret&sslmode=disable", "password=xxxxx"},
		{"host=127.0.0.1 port=1 user=user password=secret dbname=x sslmode=disable", "password=xxxxx"},
		{"host=127.0.0.1 port=1 user=user password='secret word' dbname=x sslmode=disable", "password=xxxxx"},
		{"postgres://user:secret@127.0.0.1:notaport/x", "user:xxxxx@"},
		{"postgres://user:se@cret@127.0.0.1:1/x", "user:xxxxx@"},
		{"postgres://user:secret@127.0.0.1:1/x?sslmode=bogus", "user:xxxxx@"},
	} {
		_, err := postgres.Open(ctx, c.url)
		if err == nil {
			t.Fatalf("%s: opened", c.url)
		}
		msg := err.Error()
		if strings.Contains(msg, "secret") || strings.Contains(msg, "cret@") || !strings.Contains(msg, c.mask) {
			t.Errorf("%s: error %q leaks the password or lacks %q", c.url, msg, c.mask)
		}
	}
}

func TestMaskURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable":     "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"postgres://u:p%40ss@db.example:5432/pay?search_path=payport": "postgres://u:xxxxx@db.example:5432/pay?search_path=payport",
		"host=db user=u password=pw dbname=pay":                       "host=db user=u password=xxxxx dbname=pay",
		"postgres://u:p/ss@db/pay?sslmode=require":                    "postgres://u:xxxxx@db/pay?sslmode=require",
	} {
		if got := postgres.MaskURL(in); got != want {
			t.Errorf("MaskURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// newMerchant creates a merchant with the given key.
func newMerchant(t *testing.T, s payport.Store, key string) payport.Merchant {
	t.Helper()
	m := payport.Merchant{Name: key, IMPKey: key, IMPSecretHash: []byte{1}, WebhookContentType: payport.WebhookJSON,
		WebhookMaxAttempts: 1, WebhookSecretID: "ws-" + key, CreatedAt: 1}
	if err := s.Update(ctx, func(tx payport.Tx) error { return tx.CreateMerchant(ctx, &m) }); err != nil {
		t.Fatal(err)
	}
	return m
}

func payment(merchantID int64, impUID, merchantUID string) payport.Payment {
	return payport.Payment{MerchantID: merchantID, IMPUID: impUID, MerchantUID: merchantUID, Amount: 1000,
		Currency: "KRW", Status: payport.StatusPaid}
}

// A conflict does not abort the transaction: the service retries a taken
// imp_uid in the same transaction, and turns a taken merchant_uid into a
// refusal after which it may still read.
func TestUpdate_ConflictKeepsTransactionUsable(t *testing.T) {
	t.Parallel()
	db, _ := migrated(t)
	m := newMerchant(t, db, "k1")
	err := db.Update(ctx, func(tx payport.Tx) error {
		first := payment(m.ID, "imp_1", "o1")
		if err := tx.InsertPayment(ctx, &first); err != nil {
			return err
		}
		dup := payment(m.ID, "imp_1", "o1")
		if err := tx.InsertPayment(ctx, &dup); !payport.IsConflict(err) {
			return fmt.Errorf("duplicate imp_uid: %v", err)
		}
		retry := payment(m.ID, "imp_2", "o1")
		if err := tx.InsertPayment(ctx, &retry); err != nil {
			return fmt.Errorf("retry after a conflict: %w", err)
		}
		if err := tx.ClaimMerchantUID(ctx, m.ID, "o1", true); err != nil {
			return err
		}
		if err := tx.ClaimMerchantUID(ctx, m.ID, "o1", true); !payport.IsConflict(err) {
			return fmt.Errorf("second exclusive claim: %v", err)
		}
		sc := payport.Schedule{MerchantID: m.ID, CustomerUID: "c", MerchantUID: "s1", ScheduleAt: 5, Amount: 1,
			Currency: "KRW", Status: payport.ScheduleScheduled}
		for i := 0; i < 2; i++ {
			s := sc
			if err := tx.InsertSchedule(ctx, &s); (i == 1) != payport.IsConflict(err) {
				return fmt.Errorf("schedule %d: %v", i, err)
			}
		}
		for i := 0; i < 2; i++ {
			e := payport.Event{WebhookID: "w1", MerchantID: m.ID, URL: "u", Type: "paid", CreatedAt: 1, State: payport.EventPending}
			if err := tx.InsertEvent(ctx, &e); (i == 1) != payport.IsConflict(err) {
				return fmt.Errorf("event %d: %v", i, err)
			}
		}
		for i := 0; i < 2; i++ {
			tok := payport.Token{Hash: []byte("h"), ID: "i", MerchantID: m.ID, Kind: payport.TokenREST, IssuedAt: 1, ExpiresAt: 2}
			if err := tx.InsertToken(ctx, tok); (i == 1) != payport.IsConflict(err) {
				return fmt.Errorf("token %d: %v", i, err)
			}
		}
		_, err := tx.PaymentByIMPUID(ctx, m.ID, "imp_2")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range []string{"imp_1", "imp_2"} {
		if _, err := db.PaymentByIMPUID(ctx, m.ID, imp); err != nil {
			t.Fatalf("%s after commit: %v", imp, err)
		}
	}
}

func TestUpdate_CheckViolationIsInternal(t *testing.T) {
	t.Parallel()
	db, _ := migrated(t)
	m := newMerchant(t, db, "k1")
	m.WebhookContentType = "xml"
	err := db.Update(ctx, func(tx payport.Tx) error { return tx.UpdateMerchant(ctx, m) })
	if err == nil || payport.KindOf(err) != payport.KindInternal || !strings.Contains(err.Error(), "check constraint") ||
		!strings.Contains(err.Error(), "update merchant") {
		t.Fatalf("check violation: %v", err)
	}
}

func TestUpdate_PanicRollsBack(t *testing.T) {
	t.Parallel()
	db, _ := migrated(t)
	m := newMerchant(t, db, "k1")
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want boom", v)
			}
		}()
		_ = db.Update(ctx, func(tx payport.Tx) error {
			p := payment(m.ID, "imp_1", "o1")
			if err := tx.InsertPayment(ctx, &p); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	_, err := db.PaymentByIMPUID(ctx, m.ID, "imp_1")
	if !payport.IsNotFound(err) {
		t.Fatalf("payment after a panic: %v", err)
	}
}

// hold runs fn in a transaction on db and keeps the transaction open until
// release is closed. It returns once fn has run, with fn's error.
func hold(t *testing.T, db *postgres.DB, fn func(payport.Tx) error) (release func()) {
	t.Helper()
	ran := make(chan error, 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		_ = db.Update(ctx, func(tx payport.Tx) error {
			err := fn(tx)
			ran <- err
			if err != nil {
				return err
			}
			<-done
			return nil
		})
	}()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() { close(done) })
		<-finished
	}
	t.Cleanup(release)
	return release
}

func TestDueSchedules_NodesClaimDisjointBatches(t *testing.T) {
	t.Parallel()
	a, url := migrated(t)
	b := open(t, url)
	m := newMerchant(t, a, "k1")
	err := a.Update(ctx, func(tx payport.Tx) error {
		for i := 1; i <= 5; i++ {
			s := payport.Schedule{MerchantID: m.ID, CustomerUID: "c", MerchantUID: fmt.Sprintf("s%d", i),
				ScheduleAt: int64(100 + i), Amount: 1, Currency: "KRW", Status: payport.ScheduleScheduled}
			if err := tx.InsertSchedule(ctx, &s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	uids := func(list []payport.Schedule) string {
		var out []string
		for _, s := range list {
			out = append(out, s.MerchantUID)
		}
		return strings.Join(out, ",")
	}
	var first []payport.Schedule
	release := hold(t, a, func(tx payport.Tx) error {
		var err error
		first, err = tx.DueSchedules(ctx, 1000, 2)
		return err
	})
	var second []payport.Schedule
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = b.Update(bctx, func(tx payport.Tx) error {
		var err error
		second, err = tx.DueSchedules(bctx, 1000, 10)
		return err
	})
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	if got := uids(first) + " | " + uids(second); got != "s1,s2 | s3,s4,s5" {
		t.Fatalf("batches %s, want s1,s2 | s3,s4,s5", got)
	}
	release()
}

func TestClaimEvents_NodesClaimDisjointSets(t *testing.T) {
	t.Parallel()
	a, url := migrated(t)
	b := open(t, url)
	m := newMerchant(t, a, "k1")
	err := a.Update(ctx, func(tx payport.Tx) error {
		for i := 1; i <= 5; i++ {
			e := payport.Event{WebhookID: fmt.Sprintf("w%d", i), MerchantID: m.ID, URL: "u", Type: "paid",
				CreatedAt: 1, State: payport.EventPending, NextAttemptAt: int64(10 + i)}
			if err := tx.InsertEvent(ctx, &e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(list []payport.Event) string {
		var out []string
		for _, e := range list {
			out = append(out, e.WebhookID)
		}
		return strings.Join(out, ",")
	}
	var first, second []payport.Event
	release := hold(t, a, func(tx payport.Tx) error {
		var err error
		first, err = tx.ClaimEvents(ctx, 100, 200, 3)
		return err
	})
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = b.Update(bctx, func(tx payport.Tx) error {
		var err error
		second, err = tx.ClaimEvents(bctx, 100, 200, 10)
		return err
	})
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	if got := ids(first) + " | " + ids(second); got != "w1,w2,w3 | w4,w5" {
		t.Fatalf("claims %s, want w1,w2,w3 | w4,w5", got)
	}
	release()
}

// LockMerchant excludes another LockMerchant of the merchant on another
// node, but not the merchant's writes (foreign-key checks).
func TestLockMerchant_SerialisesAcrossNodes(t *testing.T) {
	t.Parallel()
	a, url := migrated(t)
	b := open(t, url)
	m := newMerchant(t, a, "k1")
	release := hold(t, a, func(tx payport.Tx) error {
		_, err := tx.LockMerchant(ctx, m.ID)
		return err
	})
	// A payment of the merchant is written meanwhile.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := b.Update(wctx, func(tx payport.Tx) error {
		p := payment(m.ID, "imp_1", "o1")
		return tx.InsertPayment(wctx, &p)
	})
	if err != nil {
		t.Fatalf("insert under a merchant lock: %v", err)
	}
	// A second lock waits.
	lctx, lcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer lcancel()
	err = b.Update(lctx, func(tx payport.Tx) error {
		_, err := tx.LockMerchant(lctx, m.ID)
		return err
	})
	if err == nil {
		t.Fatalf("a second LockMerchant did not wait for the first")
	}
	release()
	err = b.Update(ctx, func(tx payport.Tx) error {
		_, err := tx.LockMerchant(ctx, m.ID)
		return err
	})
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
}
