package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cli runs payport in-process against a database in dir.
type cli struct {
	t   *testing.T
	env map[string]string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	t.Parallel()
	return &cli{t: t, env: map[string]string{
		"PAYPORT_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "payport.db"),
		"PAYPORT_LOG_FORMAT":   "json",
	}}
}

func (c *cli) run(args ...string) (code int, stdout, stderr string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, env{getenv: func(k string) string { return c.env[k] }, stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// serve starts `payport serve` on a random port and returns its base URL,
// its stdout so far, and a stop function that shuts it down like SIGTERM.
func (c *cli) serve() (url string, stdout *bytes.Buffer, stop func() int) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	stdout = &bytes.Buffer{}
	e := env{getenv: func(k string) string { return c.env[k] }, stdout: stdout, stderr: &bytes.Buffer{}, ready: func(a string) { ready <- a }}
	go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, e) }()
	select {
	case addr := <-ready:
		url = "http://" + addr
	case code := <-done:
		c.t.Fatalf("serve exited with %d: %s", code, e.stderr)
	case <-time.After(30 * time.Second):
		c.t.Fatalf("serve did not start")
	}
	return url, stdout, func() int { cancel(); return <-done }
}

func getToken(t *testing.T, base, key, secret string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"imp_key": key, "imp_secret": secret})
	resp, err := http.Post(base+"/users/getToken", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("getToken: %v", err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("getToken response: %v", err)
	}
	return resp.StatusCode, out
}

func TestMerchantCreate_JSONCredentialsObtainAToken(t *testing.T) {
	c := newCLI(t)
	code, out, errs := c.run("merchant", "create", "--name", "Acme", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cred map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&cred); err != nil || dec.More() {
		t.Fatalf("stdout is not exactly one JSON object: %q", out)
	}
	for _, k := range []string{"merchant_id", "imp_key", "imp_secret", "api_key"} {
		if _, ok := cred[k]; !ok || len(cred) != 4 {
			t.Fatalf("credentials %v: want exactly merchant_id, imp_key, imp_secret, api_key", cred)
		}
	}
	base, stdout, stop := c.serve()
	if strings.Contains(stdout.String(), "demo merchant") {
		t.Fatalf("a demo merchant was created on a database that had one")
	}
	status, res := getToken(t, base, cred["imp_key"].(string), cred["imp_secret"].(string))
	if status != 200 || res["code"] != float64(0) {
		t.Fatalf("getToken with CLI credentials: %d %v", status, res)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d after shutdown", code)
	}
}

func TestServe_DemoMerchantOnEmptyDatabase(t *testing.T) {
	c := newCLI(t)
	base, stdout, stop := c.serve()
	defer stop()
	fields := map[string]string{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			fields[f[0]] = f[1]
		}
	}
	if !strings.Contains(stdout.String(), "created the demo merchant") || fields["imp_key"] == "" || fields["imp_secret"] == "" || fields["api_key"] == "" {
		t.Fatalf("demo credentials not printed: %q", stdout.String())
	}
	if status, res := getToken(t, base, fields["imp_key"], fields["imp_secret"]); status != 200 || res["code"] != float64(0) {
		t.Fatalf("getToken with demo credentials: %d %v", status, res)
	}
	code, out, _ := c.run("merchant", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["name"] != "demo" {
		t.Fatalf("merchant list: %d %q", code, out)
	}
	if strings.Contains(out, fields["imp_secret"]) {
		t.Fatalf("merchant list printed a secret")
	}
}

func TestMerchantSetAndPG(t *testing.T) {
	c := newCLI(t)
	_, out, _ := c.run("merchant", "create", "--name", "Acme", "--json")
	var cred map[string]any
	_ = json.Unmarshal([]byte(out), &cred)
	key := cred["imp_key"].(string)

	code, out, errs := c.run("merchant", "set", "--imp-key", key, "--notification-url", "https://shop.example/hook", "--webhook-content-type", "form", "--schedule-list-paged=true")
	if code != 0 || !strings.Contains(out, `"notification_url": "https://shop.example/hook"`) || !strings.Contains(out, `"webhook_content_type": "form"`) || !strings.Contains(out, `"schedule_list_paged": true`) {
		t.Fatalf("merchant set: %d %q %q", code, out, errs)
	}
	if code, _, errs := c.run("merchant", "set", "--imp-key", key, "--webhook-content-type", "xml"); code != 1 || !strings.Contains(errs, "webhook-content-type: must be json or form") {
		t.Fatalf("bad content type: %d %q", code, errs)
	}
	if code, _, errs := c.run("merchant", "set", "--imp-key", key, "--notification-url", "ftp://x"); code != 1 || !strings.Contains(errs, "notification-url: must be an absolute http or https URL") {
		t.Fatalf("bad url: %d %q", code, errs)
	}
	if code, _, errs := c.run("merchant", "set", "--imp-key", "nope"); code != 1 || !strings.Contains(errs, `no merchant has imp_key "nope"`) {
		t.Fatalf("unknown merchant: %d %q", code, errs)
	}

	code, out, _ = c.run("merchant", "pg", "add", "--imp-key", key, "--provider", "html5_inicis")
	var added map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &added) != nil || added["pg_id"] != "INIpayTest" || len(added["api_key"].(string)) != 32 {
		t.Fatalf("pg add: %d %q", code, out)
	}
	if code, _, errs := c.run("merchant", "pg", "add", "--imp-key", key, "--provider", "html5_inicis"); code != 1 || !strings.Contains(errs, "pg setting html5_inicis.INIpayTest already exists") {
		t.Fatalf("duplicate pg add: %d %q", code, errs)
	}
	code, out, _ = c.run("merchant", "pg", "list", "--imp-key", key, "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 3 || list[0]["pg_provider"] != "nice" || list[1]["pg_provider"] != "payco" || list[2]["pg_provider"] != "html5_inicis" {
		t.Fatalf("pg list: %d %q", code, out)
	}
	if strings.Contains(out, "api_key") {
		t.Fatalf("pg list shows an api_key: %q", out)
	}
	if code, _, errs := c.run("merchant", "pg", "remove", "--imp-key", key, "--provider", "payco", "--pg-id", "PARTNERTEST"); code != 0 {
		t.Fatalf("pg remove: %d %q", code, errs)
	}
	if code, _, errs := c.run("merchant", "pg", "remove", "--imp-key", key, "--provider", "payco", "--pg-id", "PARTNERTEST"); code != 1 || !strings.Contains(errs, "no pg setting payco.PARTNERTEST") {
		t.Fatalf("pg remove twice: %d %q", code, errs)
	}
}

func TestCLI_UsageAndConfigErrors(t *testing.T) {
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "Usage:"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"merchant"}, 2, "merchant: missing subcommand"},
		{[]string{"merchant", "create"}, 2, "merchant create: --name is required"},
		{[]string{"merchant", "create", "--name", "x", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"migrate", "--database", "mysql://x"}, 1, `PAYPORT_DATABASE_URL: must look like sqlite:PATH or postgres://USER@HOST:PORT/DB, got "mysql://x"`},
	} {
		code, _, errs := c.run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d containing %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	if code, out, _ := c.run("version"); code != 0 || !strings.HasPrefix(out, "payport ") {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, out, _ := c.run("migrate"); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate: %d %q", code, out)
	}
	c.env["PAYPORT_SECRET_KEY"] = "short"
	if code, _, errs := c.run("migrate"); code != 1 || !strings.Contains(errs, "PAYPORT_SECRET_KEY: must be at least 32 characters") {
		t.Fatalf("short secret key: %d %q", code, errs)
	}
}
