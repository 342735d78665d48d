package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/payport/payport/postgres/pgtest"
)

func TestCLI_PostgreSQL(t *testing.T) {
	c := newCLI(t)
	url := pgtest.URL(t)
	c.env["PAYPORT_DATABASE_URL"] = url
	if code, _, errs := c.run("migrate"); code != 1 || !strings.Contains(errs, "PAYPORT_SECRET_KEY: required with PostgreSQL") {
		t.Fatalf("without a secret key: %d %q", code, errs)
	}
	c.env["PAYPORT_SECRET_KEY"] = strings.Repeat("k", 32)
	if code, out, errs := c.run("migrate"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate: %d %q %q", code, out, errs)
	}
	code, out, errs := c.run("merchant", "create", "--name", "pg", "--json")
	var cred struct {
		IMPKey    string `json:"imp_key"`
		IMPSecret string `json:"imp_secret"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cred) != nil {
		t.Fatalf("merchant create: %d %q %q", code, out, errs)
	}
	base, _, stop := c.serve()
	defer stop()
	if status, res := getToken(t, base, cred.IMPKey, cred.IMPSecret); status != 200 || res["code"] != float64(0) {
		t.Fatalf("getToken on PostgreSQL: %d %v", status, res)
	}
}

func TestCLI_PostgreSQLUnreachableNamesTheMaskedURL(t *testing.T) {
	c := newCLI(t)
	c.env["PAYPORT_DATABASE_URL"] = "postgres://payport:hunter2secret@127.0.0.1:1/payport?connect_timeout=2"
	c.env["PAYPORT_SECRET_KEY"] = strings.Repeat("k", 32)
	code, _, errs := c.run("migrate")
	if code != 1 || !strings.Contains(errs, "open database postgres://payport:") || !strings.Contains(errs, "127.0.0.1:1/payport") || strings.Contains(errs, "hunter2secret") {
		t.Fatalf("unreachable database: exit %d, stderr %q", code, errs)
	}
}
