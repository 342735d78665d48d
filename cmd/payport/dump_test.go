package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/payport/payport/postgres/pgtest"
)

// dumpRequest sends one JSON request and returns the status and the raw
// body.
func dumpRequest(t *testing.T, method, url, token string, body any) (int, []byte) {
	t.Helper()
	status, raw, err := callRaw(method, url, token, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return status, raw
}

// envelope decodes an I'mport envelope and fails unless its code is 0.
func envelope(t *testing.T, what string, status int, raw []byte) map[string]any {
	t.Helper()
	var out struct {
		Code     float64        `json:"code"`
		Response map[string]any `json:"response"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || status != 200 || out.Code != 0 {
		t.Fatalf("%s: %d %s", what, status, raw)
	}
	return out.Response
}

// TestExportImport_SQLiteToPostgreSQL moves a SQLite deployment to
// PostgreSQL with the CLI: the merchant's credentials, its current token
// and its payments (byte for byte) survive; new merchants and payments get
// fresh ids; a second import, another server key and a missing key are
// refused.
func TestExportImport_SQLiteToPostgreSQL(t *testing.T) {
	pgURL := pgtest.URL(t)
	c := newCLI(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "payport.db")
	c.env["PAYPORT_DATABASE_URL"] = "sqlite:" + dbPath

	// On SQLite: a merchant, six payments (more than the service's four
	// imp_uid attempts, so a sequence left at 1 could not hide), refunds.
	code, out, errs := c.run("merchant", "create", "--name", "Acme", "--json")
	var cred struct {
		IMPKey    string `json:"imp_key"`
		IMPSecret string `json:"imp_secret"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cred) != nil {
		t.Fatalf("merchant create: %d %q %q", code, out, errs)
	}
	base, _, stop := c.serve()
	status, res := getToken(t, base, cred.IMPKey, cred.IMPSecret)
	if status != 200 || res["code"] != float64(0) {
		t.Fatalf("getToken on SQLite: %d %v", status, res)
	}
	token := res["response"].(map[string]any)["access_token"].(string)
	var impUIDs []string
	for i, order := range []string{"order-1", "order-2", "order-3", "order-4", "order-5", "order-6"} {
		st, raw := dumpRequest(t, "POST", base+"/sandbox/payments", token, map[string]any{"merchant_uid": order, "amount": 1000 * (i + 1), "name": "Notebook", "buyer_name": "홍길동"})
		impUIDs = append(impUIDs, envelope(t, "sandbox payment", st, raw)["imp_uid"].(string))
	}
	st, raw := dumpRequest(t, "POST", base+"/payments/cancel", token, map[string]any{"imp_uid": impUIDs[1], "amount": 500, "reason": "partial"})
	envelope(t, "partial cancel", st, raw)
	st, raw = dumpRequest(t, "POST", base+"/payments/cancel", token, map[string]any{"imp_uid": impUIDs[2], "reason": "full"})
	envelope(t, "full cancel", st, raw)
	onSQLite := map[string][]byte{}
	for _, uid := range impUIDs {
		st, raw := dumpRequest(t, "GET", base+"/payments/"+uid, token, nil)
		envelope(t, "GET payment on SQLite", st, raw)
		onSQLite[uid] = raw
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve on SQLite exited %d", code)
	}

	// Export.
	dumpFile := filepath.Join(dir, "payport.jsonl")
	code, out, errs = c.run("export", "--out", dumpFile)
	if code != 0 || !strings.Contains(out, "exported") || !strings.Contains(out, "payments") || !strings.Contains(out, dbPath+".key") {
		t.Fatalf("export: %d %q %q", code, out, errs)
	}
	if fi, err := os.Stat(dumpFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("dump file: %v %v", fi, err)
	}
	rawKey, err := os.ReadFile(dbPath + ".key")
	if err != nil {
		t.Fatal(err)
	}

	// Import into PostgreSQL: refused without a key and with another key.
	// pool_max_conns is pgxpool's, never a server setting.
	pg := &cli{t: t, env: map[string]string{"PAYPORT_DATABASE_URL": pgURL + "&pool_max_conns=3", "PAYPORT_LOG_FORMAT": "json"}}
	if code, _, errs := pg.run("import", "--in", dumpFile); code != 1 || !strings.Contains(errs, "PAYPORT_SECRET_KEY: required with PostgreSQL") {
		t.Fatalf("import without a key: %d %q", code, errs)
	}
	pg.env["PAYPORT_SECRET_KEY"] = strings.Repeat("k", 32)
	if code, _, errs := pg.run("import", "--in", dumpFile); code != 1 || !strings.Contains(errs, "another server key") {
		t.Fatalf("import with another key: %d %q", code, errs)
	}
	pg.env["PAYPORT_SECRET_KEY"] = strings.TrimSpace(string(rawKey))
	code, out, errs = pg.run("import", "--in", dumpFile)
	if code != 0 || !strings.Contains(out, "imported") || !strings.Contains(out, "identity sequences") || !strings.Contains(out, "server key matches") {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	if code, _, errs := pg.run("import", "--in", dumpFile); code != 1 || !strings.Contains(errs, "table merchants has rows") {
		t.Fatalf("second import: %d %q", code, errs)
	}

	// payport serve on PostgreSQL: the same credentials, token and payments.
	base, stdout, stop := pg.serve()
	defer stop()
	if strings.Contains(stdout.String(), "demo merchant") {
		t.Fatalf("serve created a demo merchant on the imported database")
	}
	status, res = getToken(t, base, cred.IMPKey, cred.IMPSecret)
	if status != 200 || res["code"] != float64(0) || res["response"].(map[string]any)["access_token"] != token {
		t.Fatalf("getToken on PostgreSQL: %d %v, want the current token %s", status, res, token)
	}
	for _, uid := range impUIDs {
		st, raw := dumpRequest(t, "GET", base+"/payments/"+uid, token, nil)
		if st != 200 || !bytes.Equal(raw, onSQLite[uid]) {
			t.Errorf("GET /payments/%s on PostgreSQL:\n%s\non SQLite:\n%s", uid, raw, onSQLite[uid])
		}
	}

	// New rows take ids after the imported ones.
	st, raw = dumpRequest(t, "POST", base+"/sandbox/payments", token, map[string]any{"merchant_uid": "order-7", "amount": 7000})
	created := envelope(t, "a new payment on PostgreSQL", st, raw)
	st, raw = dumpRequest(t, "GET", base+"/payments/"+created["imp_uid"].(string), token, nil)
	envelope(t, "GET the new payment", st, raw)
	st, raw = dumpRequest(t, "POST", base+"/payments/cancel", token, map[string]any{"imp_uid": impUIDs[3], "amount": 100, "reason": "after the move"})
	if got := envelope(t, "refund an imported payment on PostgreSQL", st, raw); got["cancel_amount"] != float64(100) {
		t.Fatalf("refund: %v", got)
	}
	code, out, errs = pg.run("merchant", "create", "--name", "After", "--json")
	var second struct {
		MerchantID int64 `json:"merchant_id"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &second) != nil || second.MerchantID != 2 {
		t.Fatalf("merchant create on PostgreSQL: %d %q %q (want merchant_id 2)", code, out, errs)
	}
}

// TestExportImport_PostgreSQLToSQLite exports PostgreSQL to standard
// output and imports it into SQLite, whose key file must be the source's.
func TestExportImport_PostgreSQLToSQLite(t *testing.T) {
	pgURL := pgtest.URL(t)
	pg := newCLI(t)
	pg.env["PAYPORT_DATABASE_URL"] = pgURL + "&pool_max_conns=2"
	pg.env["PAYPORT_SECRET_KEY"] = strings.Repeat("s", 40)
	code, out, errs := pg.run("merchant", "create", "--name", "Acme", "--json")
	var cred struct {
		IMPKey    string `json:"imp_key"`
		IMPSecret string `json:"imp_secret"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cred) != nil {
		t.Fatalf("merchant create: %d %q %q", code, out, errs)
	}
	code, dumped, errs := pg.run("export")
	if code != 0 || !strings.HasPrefix(dumped, `{"format":"payport-dump"`) || !strings.Contains(errs, "exported") || !strings.Contains(errs, "PAYPORT_SECRET_KEY") {
		t.Fatalf("export to stdout: %d %q %q", code, dumped, errs)
	}
	dumpFile := filepath.Join(t.TempDir(), "pg.jsonl")
	if err := os.WriteFile(dumpFile, []byte(dumped), 0o600); err != nil {
		t.Fatal(err)
	}

	c := &cli{t: t, env: map[string]string{"PAYPORT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "payport.db"), "PAYPORT_LOG_FORMAT": "json"}}
	if code, _, errs := c.run("import", "--in", dumpFile); code != 1 || !strings.Contains(errs, "copy the source's key file") {
		t.Fatalf("import into SQLite without a key: %d %q", code, errs)
	}
	c.env["PAYPORT_SECRET_KEY"] = strings.Repeat("s", 40)
	if code, out, errs := c.run("import", "--in", dumpFile); code != 0 || !strings.Contains(out, "from a postgres dump") {
		t.Fatalf("import into SQLite: %d %q %q", code, out, errs)
	}
	base, _, stop := c.serve()
	defer stop()
	if status, res := getToken(t, base, cred.IMPKey, cred.IMPSecret); status != 200 || res["code"] != float64(0) {
		t.Fatalf("getToken on SQLite: %d %v", status, res)
	}
}

// TestExport_SQLiteIsReadOnly exports a SQLite database while it serves,
// and never creates a missing one.
func TestExport_SQLiteIsReadOnly(t *testing.T) {
	c := newCLI(t)
	missing := filepath.Join(t.TempDir(), "missing.db")
	if code, _, errs := c.run("export", "--database", "sqlite:"+missing); code != 1 || !strings.Contains(errs, "no such file") {
		t.Fatalf("export of a missing database: %d %q", code, errs)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatalf("export created %s", missing)
	}
	_, _, stop := c.serve() // creates the demo merchant
	defer stop()
	out := filepath.Join(t.TempDir(), "live.jsonl")
	if code, stdout, errs := c.run("export", "--out", out); code != 0 || !strings.Contains(stdout, "merchants") {
		t.Fatalf("export while serving: %d %q %q", code, stdout, errs)
	}
	raw, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(raw), `"name":"demo"`) {
		t.Fatalf("dump: %v %s", err, raw)
	}
}
