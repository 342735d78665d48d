// Package pgtest gives tests a private PostgreSQL schema to run against.
// The server comes from the environment variable PAYPORT_TEST_POSTGRES_URL
// (for example postgres://postgres@127.0.0.1:5432/test?sslmode=disable).
// Without it the tests are skipped, except in CI (CI=true), where a missing
// database is a failure: CI must never pass by skipping.
//
// Each call of URL creates a schema with a random name and returns the
// base URL with search_path set to it, so tests and test packages run in
// parallel in one database without seeing each other's rows; the schema is
// dropped when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payport/payport/postgres"
)

// EnvURL names the environment variable holding the server's base URL.
const EnvURL = "PAYPORT_TEST_POSTGRES_URL"

// BaseURL returns the server's base URL from EnvURL. When it is unset, it
// skips the test, or fails it when the environment variable CI is "true".
func BaseURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PostgreSQL tests cannot be skipped in CI: set " + EnvURL + "=postgres://… to run them")
		}
		t.Skip("PostgreSQL tests skipped: set " + EnvURL + "=postgres://… to run them")
	}
	return base
}

// URL creates a fresh, empty schema on the server of BaseURL (with the skip
// and CI rules of BaseURL) and returns the base URL with search_path set to
// it. The schema and everything in it is dropped at the end of the test;
// close the stores opened on it before (cleanups registered later run
// first).
func URL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	ident := pgx.Identifier{schema}.Sanitize()
	if err := exec(base, "CREATE SCHEMA "+ident); err != nil {
		t.Fatalf("pgtest: create schema %s on %s: %v", schema, postgres.MaskURL(base), err)
	}
	t.Cleanup(func() {
		if err := exec(base, "DROP SCHEMA IF EXISTS "+ident+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s on %s: %v", schema, postgres.MaskURL(base), err)
		}
	})
	return WithSearchPath(base, schema)
}

// WithSearchPath returns the connection string base with its search_path
// set to schema, in the URL or the key=value form.
func WithSearchPath(base, schema string) string {
	if u, err := url.Parse(base); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(base) + " search_path=" + schema
}

// exec runs one statement on a connection of its own.
func exec(connString, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
