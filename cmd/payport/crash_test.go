package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // read the database file directly
)

// buildBinary builds the payport command once per test binary run.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "payport-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "payport")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// process is a `payport serve` child process.
type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func startServe(t *testing.T, bin string, env []string) *process {
	t.Helper()
	addr := freeAddr(t)
	p := &process{cmd: exec.Command(bin, "serve", "--addr", addr), url: "http://" + addr, stderr: &bytes.Buffer{}}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(p.url + "/healthz"); err == nil {
			resp.Body.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", p.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServe_SIGKILLLosesAndDuplicatesNothing kills a serving process while
// scheduled payments run and webhooks are in flight, restarts it on the
// same database, and checks that every schedule ran exactly once and every
// webhook went out.
func TestServe_SIGKILLLosesAndDuplicatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	c := newCLI(t)
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{} // merchant_uid → deliveries
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev struct {
			MerchantUID string `json:"merchant_uid"`
		}
		_ = json.Unmarshal(body, &ev)
		time.Sleep(20 * time.Millisecond) // a slow receiver keeps deliveries in flight
		mu.Lock()
		seen[ev.MerchantUID]++
		mu.Unlock()
	}))
	defer rcv.Close()

	_, out, _ := c.run("merchant", "create", "--name", "Acme", "--json")
	var cred struct {
		IMPKey    string `json:"imp_key"`
		IMPSecret string `json:"imp_secret"`
	}
	if err := json.Unmarshal([]byte(out), &cred); err != nil {
		t.Fatalf("merchant create: %q", out)
	}
	if code, _, errs := c.run("merchant", "set", "--imp-key", cred.IMPKey, "--notification-url", rcv.URL+"/hooks"); code != 0 {
		t.Fatalf("merchant set: %s", errs)
	}
	// A short delivery timeout makes the killed node's webhook leases run
	// out in 2×2+10 s instead of minutes.
	env := []string{"PAYPORT_DATABASE_URL=" + c.env["PAYPORT_DATABASE_URL"], "PAYPORT_LOG_FORMAT=json", "PAYPORT_WEBHOOK_TIMEOUT=2s"}
	first := startServe(t, bin, env)
	tok := postJSON(t, first.url+"/users/getToken", "", map[string]string{"imp_key": cred.IMPKey, "imp_secret": cred.IMPSecret})["response"].(map[string]any)["access_token"].(string)
	postJSON(t, first.url+"/subscribe/customers/cust-1", tok, map[string]string{"card_number": "4242-4242-4242-4242", "expiry": "2030-12"})
	const n = 400
	start := time.Now().Unix() + 2
	items := make([]map[string]any, n)
	for i := range items {
		items[i] = map[string]any{"merchant_uid": fmt.Sprintf("crash-%03d", i), "schedule_at": start + int64(i%3), "amount": 100}
	}
	postJSON(t, first.url+"/subscribe/payments/schedule", tok, map[string]any{"customer_uid": "cust-1", "schedules": items})

	dbPath := strings.TrimPrefix(c.env["PAYPORT_DATABASE_URL"], "sqlite:")
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := counter(t, db)
	waitFor := func(what string, cond func() bool) { waitUntil(t, what, 60*time.Second, cond) }
	// Kill once some schedules ran and some webhooks went out, mid-stream.
	waitFor("the first executions", func() bool { return count(`SELECT count(*) FROM schedules WHERE status = 'executed'`) > 0 })
	waitFor("a delivered webhook", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) > 0 })
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	executedAtKill := count(`SELECT count(*) FROM schedules WHERE status = 'executed'`)
	mu.Lock()
	deliveredAtKill := len(seen)
	mu.Unlock()

	startServe(t, bin, env)
	waitFor("every schedule to run", func() bool { return count(`SELECT count(*) FROM schedules WHERE status = 'executed'`) == n })
	waitFor("every webhook", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == n })
	if dup := count(`SELECT count(*) FROM (SELECT merchant_uid FROM payments GROUP BY merchant_uid HAVING count(*) > 1)`); dup != 0 {
		t.Fatalf("%d orders were charged more than once", dup)
	}
	if p := count(`SELECT count(*) FROM payments`); p != n {
		t.Fatalf("payments = %d, want %d", p, n)
	}
	if bad := count(`SELECT count(*) FROM schedules s LEFT JOIN payments p ON p.imp_uid = s.imp_uid WHERE p.id IS NULL`); bad != 0 {
		t.Fatalf("%d executed schedules have no payment", bad)
	}
	waitFor("the outbox to drain", func() bool { return count(`SELECT count(*) FROM webhook_events WHERE state <> 'delivered'`) == 0 })
	t.Logf("killed after %d of %d executions and %d webhooks; after restart all %d ran once", executedAtKill, n, deliveredAtKill, n)
}
