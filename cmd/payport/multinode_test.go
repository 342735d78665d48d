package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // read the database directly

	"github.com/payport/payport/postgres/pgtest"
)

// TestMultiNode_PostgreSQL runs three `payport serve` processes on one
// PostgreSQL database: 2,000 schedules fall due within seconds while
// getToken, one-time payment and cancel traffic goes to every node, and one
// node is SIGKILLed midway. Afterwards every schedule ran exactly once,
// every order was paid at most once, no refund exceeded its payment, every
// webhook event reached the receiver under a single webhook-id, and
// concurrent getToken calls never saw two tokens at once.
func TestMultiNode_PostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes")
	}
	c := newCLI(t) // parallel
	dbURL := pgtest.URL(t)
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.Repeat("s", 40)
	c.env["PAYPORT_DATABASE_URL"] = dbURL
	c.env["PAYPORT_SECRET_KEY"] = secret

	var mu sync.Mutex
	deliveries := map[string]int{}             // webhook-id → deliveries
	idsOfEvent := map[string]map[string]bool{} // merchant_uid/status → webhook-ids
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev struct {
			MerchantUID string `json:"merchant_uid"`
			Status      string `json:"status"`
		}
		_ = json.Unmarshal(body, &ev)
		key := ev.MerchantUID + "/" + ev.Status
		mu.Lock()
		deliveries[r.Header.Get("webhook-id")]++
		if idsOfEvent[key] == nil {
			idsOfEvent[key] = map[string]bool{}
		}
		idsOfEvent[key][r.Header.Get("webhook-id")] = true
		mu.Unlock()
	}))
	defer rcv.Close()

	code, out, errs := c.run("merchant", "create", "--name", "multi", "--json")
	if code != 0 {
		t.Fatalf("merchant create: %s", errs)
	}
	var cred struct {
		IMPKey    string `json:"imp_key"`
		IMPSecret string `json:"imp_secret"`
	}
	_ = json.Unmarshal([]byte(out), &cred)
	if code, _, errs := c.run("merchant", "set", "--imp-key", cred.IMPKey, "--notification-url", rcv.URL+"/hooks"); code != 0 {
		t.Fatalf("merchant set: %s", errs)
	}

	env := []string{"PAYPORT_DATABASE_URL=" + dbURL, "PAYPORT_SECRET_KEY=" + secret, "PAYPORT_LOG_FORMAT=json", "PAYPORT_WEBHOOK_TIMEOUT=2s"}
	nodes := []*process{startServe(t, bin, env), startServe(t, bin, env), startServe(t, bin, env)}
	var killed atomic.Bool
	live := func() *process { // a random node that is still up
		if killed.Load() {
			return nodes[1+rand.IntN(2)]
		}
		return nodes[rand.IntN(3)]
	}
	getToken := func(p *process) (string, error) {
		status, env, err := call("POST", p.url+"/users/getToken", "", map[string]string{"imp_key": cred.IMPKey, "imp_secret": cred.IMPSecret})
		if err != nil || status != 200 {
			return "", fmt.Errorf("getToken: %d %v %v", status, env, err)
		}
		return env["response"].(map[string]any)["access_token"].(string), nil
	}
	tok, err := getToken(nodes[0])
	if err != nil {
		t.Fatal(err)
	}
	if status, env, err := call("POST", nodes[1].url+"/subscribe/customers/cust-1", tok, map[string]string{"card_number": "4242-4242-4242-4242", "expiry": "2030-12"}); err != nil || status != 200 || env["code"] != float64(0) {
		t.Fatalf("billing key: %d %v %v", status, env, err)
	}
	const schedules = 2000
	due := time.Now().Unix() + 3
	for batch := 0; batch < schedules/500; batch++ {
		items := make([]map[string]any, 500)
		for i := range items {
			n := batch*500 + i
			items[i] = map[string]any{"merchant_uid": fmt.Sprintf("sch-%04d", n), "schedule_at": due + int64(n%4), "amount": 100}
		}
		if status, env, err := call("POST", nodes[batch%3].url+"/subscribe/payments/schedule", tok, map[string]any{"customer_uid": "cust-1", "schedules": items}); err != nil || status != 200 || env["code"] != float64(0) {
			t.Fatalf("schedule: %d %v %v", status, env, err)
		}
	}

	// Traffic on every node while the schedules run.
	stop := make(chan struct{})
	var traffic sync.WaitGroup
	var tokenViolations, onetimeOK, refusedDup, cancelOK atomic.Int64
	for g := 0; g < 4; g++ { // getToken: all concurrent answers within a round agree
		traffic.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				seen := map[string]bool{}
				var wg sync.WaitGroup
				var smu sync.Mutex
				for i := 0; i < 6; i++ {
					wg.Go(func() {
						if tk, err := getToken(live()); err == nil {
							smu.Lock()
							seen[tk] = true
							smu.Unlock()
						}
					})
				}
				wg.Wait()
				if len(seen) > 1 {
					tokenViolations.Add(1)
				}
			}
		})
	}
	var order atomic.Int64
	for g := 0; g < 4; g++ { // one-time payments, each order sent to two nodes at once
		traffic.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				uid := fmt.Sprintf("ot-%d", order.Add(1))
				body := map[string]any{"merchant_uid": uid, "amount": 1000, "card_number": "4242-4242-4242-4242", "expiry": "2030-12"}
				var wg sync.WaitGroup
				for i := 0; i < 2; i++ {
					wg.Go(func() {
						status, env, err := call("POST", live().url+"/subscribe/payments/onetime", tok, body)
						switch {
						case err != nil || status != 200:
						case env["code"] == float64(0):
							onetimeOK.Add(1)
						case env["message"] == "이미 사용된 merchant_uid입니다.":
							refusedDup.Add(1)
						}
					})
				}
				wg.Wait()
				// three concurrent partial refunds of 400 on three nodes: at most two fit
				for i := 0; i < 3; i++ {
					wg.Go(func() {
						status, env, err := call("POST", live().url+"/payments/cancel", tok, map[string]any{"merchant_uid": uid, "amount": 400})
						if err == nil && status == 200 && env["code"] == float64(0) {
							cancelOK.Add(1)
						}
					})
				}
				wg.Wait()
			}
		})
	}

	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := counter(t, db)
	waitFor := func(what string, limit time.Duration, cond func() bool) { waitUntil(t, what, limit, cond) }
	waitFor("executions to start", 60*time.Second, func() bool {
		return count(`SELECT count(*) FROM schedules WHERE status = 'executed'`) >= schedules/4
	})
	if err := nodes[0].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Store(true)
	_ = nodes[0].cmd.Wait()
	executedAtKill := count(`SELECT count(*) FROM schedules WHERE status = 'executed'`)
	waitFor("every schedule", 90*time.Second, func() bool {
		return count(`SELECT count(*) FROM schedules WHERE status = 'executed'`) == schedules
	})
	time.Sleep(500 * time.Millisecond) // let the traffic run past the kill a little longer
	close(stop)
	traffic.Wait()
	waitFor("the outbox to drain", 90*time.Second, func() bool {
		return count(`SELECT count(*) FROM webhook_events WHERE state <> 'delivered'`) == 0
	})

	if n := count(`SELECT count(*) FROM (SELECT merchant_uid FROM payments GROUP BY merchant_uid HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d orders were paid more than once", n)
	}
	if n := count(`SELECT count(*) FROM payments WHERE customer_uid_usage = 'payment.scheduled'`); n != schedules {
		t.Errorf("scheduled payments: %d, want %d", n, schedules)
	}
	if n := count(`SELECT count(*) FROM schedules s LEFT JOIN payments p ON p.imp_uid = s.imp_uid WHERE p.id IS NULL`); n != 0 {
		t.Errorf("%d executed schedules without their payment", n)
	}
	if n := count(`SELECT count(*) FROM payments WHERE cancel_amount > amount`); n != 0 {
		t.Errorf("%d payments refunded beyond their amount", n)
	}
	if n := count(`SELECT count(*) FROM payments p WHERE cancel_amount <> (SELECT coalesce(sum(amount), 0) FROM payment_cancels c WHERE c.payment_id = p.id)`); n != 0 {
		t.Errorf("%d payments whose cancel_amount differs from their history", n)
	}
	if v := tokenViolations.Load(); v != 0 {
		t.Errorf("%d getToken rounds saw two tokens at once", v)
	}
	events := count(`SELECT count(*) FROM webhook_events`)
	mu.Lock()
	defer mu.Unlock()
	if len(idsOfEvent) != events {
		t.Errorf("receiver saw %d events, the outbox holds %d", len(idsOfEvent), events)
	}
	for key, ids := range idsOfEvent {
		if len(ids) != 1 {
			t.Errorf("event %s arrived under %d webhook-ids", key, len(ids))
		}
	}
	redelivered := 0
	for _, n := range deliveries {
		if n > 1 {
			redelivered++
		}
	}
	t.Logf("killed a node after %d of %d executions; %d one-time payments (%d duplicate orders refused), %d refunds; %d webhooks, %d delivered more than once",
		executedAtKill, schedules, onetimeOK.Load(), refusedDup.Load(), cancelOK.Load(), events, redelivered)
}
