package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/payport/payport"
	"github.com/payport/payport/sqlite"
)

func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "payport.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestGroupCommit_FailuresStayIsolated runs many concurrent Updates, so
// that they share commits, where every third one fails after writing and
// one panics: only the successful ones' writes remain, and each caller
// gets its own outcome.
func TestGroupCommit_FailuresStayIsolated(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	const n = 300
	errs := make([]error, n)
	var panics int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					mu.Lock()
					panics++
					mu.Unlock()
				}
			}()
			errs[i] = db.Update(ctx, func(tx payport.Tx) error {
				m := payport.Merchant{Name: "m", IMPKey: fmt.Sprintf("k%d", i), IMPSecretHash: []byte{1},
					WebhookContentType: "json", WebhookMaxAttempts: 1, WebhookSecretID: "w"}
				if err := tx.CreateMerchant(ctx, &m); err != nil {
					return err
				}
				switch {
				case i == 7:
					panic("boom")
				case i%3 == 0:
					return fmt.Errorf("refused %d", i)
				}
				return nil
			})
		})
	}
	wg.Wait()
	if panics != 1 {
		t.Fatalf("panics re-raised in the caller: %d, want 1", panics)
	}
	ms, err := db.Merchants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, m := range ms {
		kept[m.IMPKey] = true
	}
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%d", i)
		switch {
		case i == 7:
			if kept[key] {
				t.Fatalf("the panicking update's write survived")
			}
		case i%3 == 0:
			if errs[i] == nil || errs[i].Error() != fmt.Sprintf("refused %d", i) || kept[key] {
				t.Fatalf("update %d: err %v, kept %v; want its own error and no write", i, errs[i], kept[key])
			}
		default:
			if errs[i] != nil || !kept[key] {
				t.Fatalf("update %d: err %v, kept %v; want success", i, errs[i], kept[key])
			}
		}
	}
}

// TestGroupCommit_LaterUpdatesSeeEarlierOnes checks that updates sharing a
// commit still run one after another: a uniqueness rule holds among them.
func TestGroupCommit_LaterUpdatesSeeEarlierOnes(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	var m payport.Merchant
	if err := db.Update(ctx, func(tx payport.Tx) error {
		m = payport.Merchant{Name: "m", IMPKey: "k", IMPSecretHash: []byte{1}, WebhookContentType: "json", WebhookMaxAttempts: 1, WebhookSecretID: "w"}
		return tx.CreateMerchant(ctx, &m)
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]error, 100)
	for i := range results {
		wg.Go(func() {
			results[i] = db.Update(ctx, func(tx payport.Tx) error { return tx.ClaimMerchantUID(ctx, m.ID, "order", true) })
		})
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		if err == nil {
			wins++
		} else if !payport.IsConflict(err) {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d claims won, want 1", wins)
	}
}

func TestGroupCommit_CancelledContextAndClose(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	err := db.Update(ctx, func(payport.Tx) error { called = true; return nil })
	if !errors.Is(err, context.Canceled) || called {
		t.Fatalf("cancelled context: err %v, fn called %v", err, called)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(context.Background(), func(payport.Tx) error { return nil }); err == nil {
		t.Fatalf("Update after Close succeeded")
	}
}
