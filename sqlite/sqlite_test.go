package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/payport/payport"
	"github.com/payport/payport/sqlite"
	"github.com/payport/payport/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) payport.Store {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "payport.db"))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		return db
	})
}

func TestMigrate_RefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "payport.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrating twice: %v", err)
	}
	v, err := db.SchemaVersion(ctx)
	if err != nil || v < 1 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	if err := db.ForceSchemaVersionForTest(ctx, v+1); err != nil {
		t.Fatal(err)
	}
	err = db.Migrate(ctx)
	if !errors.Is(err, sqlite.ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade payport") {
		t.Fatalf("migrate over a newer schema: %v", err)
	}
}
