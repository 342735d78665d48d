package webhook_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payport/payport"
	"github.com/payport/payport/sqlite"
	"github.com/payport/payport/webhook"
)

// t0 is where every test's server clock starts.
var t0 = time.Unix(1_700_000_000, 0)

// manualClock is a server clock that only the test moves.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *manualClock { return &manualClock{now: t0} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// secretOf is the test's per-merchant signing secret.
func secretOf(m payport.Merchant) string {
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte("signing key of "+m.WebhookSecretID))
}

func newStore(t *testing.T) payport.Store {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "payport.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

func update(t *testing.T, st payport.Store, fn func(payport.Tx) error) {
	t.Helper()
	if err := st.Update(context.Background(), fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

var seq atomic.Int64

// newMerchant creates a merchant; change adjusts its settings first.
func newMerchant(t *testing.T, st payport.Store, change func(*payport.Merchant)) payport.Merchant {
	t.Helper()
	n := seq.Add(1)
	m := payport.Merchant{
		Name: fmt.Sprintf("shop %d", n), IMPKey: fmt.Sprintf("imp%013d", n), IMPSecretHash: []byte{1, byte(n)},
		WebhookContentType: payport.WebhookJSON, WebhookMaxAttempts: payport.DefaultWebhookMaxAttempts,
		WebhookSecretID: fmt.Sprintf("secret-id-%d", n), CreatedAt: t0.Unix(),
	}
	update(t, st, func(tx payport.Tx) error { return tx.CreateMerchant(context.Background(), &m) })
	if change != nil {
		change(&m)
		update(t, st, func(tx payport.Tx) error { return tx.UpdateMerchant(context.Background(), m) })
	}
	return m
}

// addEvent queues a "paid" event of the merchant to url, due at the clock's now.
func addEvent(t *testing.T, st payport.Store, clock payport.Clock, m payport.Merchant, url string) payport.Event {
	t.Helper()
	n := seq.Add(1)
	e := payport.Event{
		WebhookID: fmt.Sprintf("msg_%d", n), MerchantID: m.ID, URL: url, Type: "paid",
		IMPUID: fmt.Sprintf("imp_%d", n), MerchantUID: fmt.Sprintf("order_%d", n), Status: "paid",
		CreatedAt: clock.Now().Unix(), State: payport.EventPending, NextAttemptAt: clock.Now().Unix(),
	}
	update(t, st, func(tx payport.Tx) error { return tx.InsertEvent(context.Background(), &e) })
	return e
}

func eventOf(t *testing.T, st payport.Store, e payport.Event) payport.Event {
	t.Helper()
	got, err := st.EventByID(context.Background(), e.MerchantID, e.ID)
	if err != nil {
		t.Fatalf("event %d: %v", e.ID, err)
	}
	return got
}

func newDispatcher(st payport.Store, clock payport.Clock) *webhook.Dispatcher {
	return &webhook.Dispatcher{Store: st, Clock: clock, Secret: secretOf}
}

// deliverOnce runs one round and checks how many events it attempted.
func deliverOnce(t *testing.T, d *webhook.Dispatcher, want int) {
	t.Helper()
	n, err := d.DeliverOnce(context.Background())
	if err != nil || n != want {
		t.Fatalf("DeliverOnce = %d, %v; want %d", n, err, want)
	}
}

// request is what a receiver got.
type request struct {
	method string
	header http.Header
	body   string
	verify error // Verify of the request with the merchant's secret at the server clock
}

// receiver is a webhook endpoint on loopback. It answers statuses in turn,
// then 200, verifying each request's signature as a merchant would.
type receiver struct {
	srv    *httptest.Server
	secret string
	clock  payport.Clock

	mu       sync.Mutex
	statuses []int
	reqs     []request
}

func newReceiver(t *testing.T, clock payport.Clock, m payport.Merchant, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{secret: secretOf(m), clock: clock, statuses: statuses}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, request{req.Method, req.Header.Clone(), string(body), webhook.Verify(r.secret, req.Header, body, r.clock.Now(), 5*time.Minute)})
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	r.mu.Unlock()
	w.WriteHeader(status)
	fmt.Fprint(w, "receiver's internal detail")
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.reqs...)
}

// checkAttempt compares an event's state and its last attempt.
func checkAttempt(t *testing.T, got payport.Event, state string, attempts int, status int, at, next int64) {
	t.Helper()
	if got.State != state || got.Attempts != attempts || len(got.History) == 0 {
		t.Fatalf("event: state %s, attempts %d, %d recorded; want %s, %d", got.State, got.Attempts, len(got.History), state, attempts)
	}
	a := got.History[len(got.History)-1]
	if a.HTTPStatus != status || a.AttemptedAt != at || a.EventID != got.ID {
		t.Fatalf("last attempt %+v: want status %d at %d", a, status, at)
	}
	if status != 0 && a.Error != "" {
		t.Fatalf("attempt with an answer stores error %q", a.Error)
	}
	if strings.Contains(a.Error, "internal detail") {
		t.Fatalf("attempt stores the response body: %q", a.Error)
	}
	if state == payport.EventPending && got.NextAttemptAt != next {
		t.Fatalf("next attempt at %d (+%d s), want %d (+%d s)", got.NextAttemptAt, got.NextAttemptAt-at, next, next-at)
	}
}

func TestDispatcher_DeliversSignedEvent(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	rcv := newReceiver(t, clock, m)
	e := addEvent(t, st, clock, m, rcv.srv.URL+"/hook?shop=1")
	d := newDispatcher(st, clock)

	deliverOnce(t, d, 1)
	reqs := rcv.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.verify != nil {
		t.Fatalf("signature: %v", r.verify)
	}
	wantBody := fmt.Sprintf(`{"imp_uid":%q,"merchant_uid":%q,"status":"paid"}`, e.IMPUID, e.MerchantUID)
	if r.method != http.MethodPost || r.body != wantBody {
		t.Fatalf("got %s %s, want POST %s", r.method, r.body, wantBody)
	}
	for k, v := range map[string]string{
		"webhook-id": e.WebhookID, "webhook-timestamp": "1700000000", "Content-Type": "application/json",
		"User-Agent": "payport-webhook/1", "webhook-signature": webhook.Sign(secretOf(m), e.WebhookID, t0.Unix(), []byte(wantBody)),
	} {
		if got := r.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	got := eventOf(t, st, e)
	checkAttempt(t, got, payport.EventDelivered, 1, 200, t0.Unix(), 0)
	if len(got.History) != 1 {
		t.Fatalf("%d attempts recorded", len(got.History))
	}
	deliverOnce(t, d, 0) // delivered events are never claimed again
}

func TestDispatcher_RetriesWithBackoffUntilDelivered(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	rcv := newReceiver(t, clock, m, 500, 500, 200)
	e := addEvent(t, st, clock, m, rcv.srv.URL)
	d := newDispatcher(st, clock)

	deliverOnce(t, d, 1)
	checkAttempt(t, eventOf(t, st, e), payport.EventPending, 1, 500, t0.Unix(), t0.Unix()+60)
	deliverOnce(t, d, 0) // not due yet
	clock.Advance(59 * time.Second)
	deliverOnce(t, d, 0)
	clock.Advance(time.Second)
	deliverOnce(t, d, 1)
	checkAttempt(t, eventOf(t, st, e), payport.EventPending, 2, 500, t0.Unix()+60, t0.Unix()+60+120)
	clock.Advance(119 * time.Second)
	deliverOnce(t, d, 0)
	clock.Advance(time.Second)
	deliverOnce(t, d, 1)
	got := eventOf(t, st, e)
	checkAttempt(t, got, payport.EventDelivered, 3, 200, t0.Unix()+180, 0)

	if len(got.History) != 3 || got.History[0].HTTPStatus != 500 || got.History[1].HTTPStatus != 500 {
		t.Fatalf("history %+v", got.History)
	}
	reqs := rcv.requests()
	if len(reqs) != 3 {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	for i, r := range reqs {
		wantTS := fmt.Sprint(t0.Unix() + []int64{0, 60, 180}[i])
		if r.header.Get("webhook-id") != e.WebhookID || r.header.Get("webhook-timestamp") != wantTS || r.verify != nil {
			t.Fatalf("request %d: id %q ts %q verify %v; want id %q ts %s", i, r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.verify, e.WebhookID, wantTS)
		}
	}
}

func TestDispatcher_ReceiverDownFailsAfterMaxAttemptsThenRedelivers(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, func(m *payport.Merchant) { m.WebhookMaxAttempts = 3 })
	// A closed listener: connections are refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := addEvent(t, st, clock, m, "http://"+addr+"/hook")
	d := newDispatcher(st, clock)

	at := t0.Unix()
	for i, delay := range []int64{60, 120} {
		deliverOnce(t, d, 1)
		got := eventOf(t, st, e)
		checkAttempt(t, got, payport.EventPending, i+1, 0, at, at+delay)
		if last := got.History[i]; last.Error == "" {
			t.Fatalf("attempt %d records no error", i+1)
		}
		clock.Advance(time.Duration(delay) * time.Second)
		at += delay
	}
	deliverOnce(t, d, 1)
	got := eventOf(t, st, e)
	checkAttempt(t, got, payport.EventFailed, 3, 0, at, 0)
	if !strings.Contains(got.History[2].Error, "refused") {
		t.Fatalf("error %q", got.History[2].Error)
	}
	clock.Advance(24 * time.Hour)
	deliverOnce(t, d, 0) // failed events stay failed

	// The receiver comes back on the same address; the merchant redelivers.
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	rcv := &receiver{secret: secretOf(m), clock: clock}
	rcv.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: rcv}}
	rcv.srv.Start()
	defer rcv.srv.Close()
	update(t, st, func(tx payport.Tx) error {
		return tx.RedeliverEvent(context.Background(), m.ID, e.ID, clock.Now().Unix())
	})
	deliverOnce(t, d, 1)
	got = eventOf(t, st, e)
	checkAttempt(t, got, payport.EventDelivered, 1, 200, clock.Now().Unix(), 0)
	if len(got.History) != 4 {
		t.Fatalf("%d attempts recorded, want 4", len(got.History))
	}
	if reqs := rcv.requests(); len(reqs) != 1 || reqs[0].header.Get("webhook-id") != e.WebhookID || reqs[0].verify != nil {
		t.Fatalf("redelivery: %+v", reqs)
	}
}

func TestDispatcher_ContentTypeChangeTakesEffectNextAttempt(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	rcv := newReceiver(t, clock, m, 503)
	e := payport.Event{
		WebhookID: "msg_cancel", MerchantID: m.ID, URL: rcv.srv.URL, Type: "cancelled",
		IMPUID: "imp_c", MerchantUID: "order 1/a", Status: "cancelled", CancelID: "cncl_1",
		CreatedAt: t0.Unix(), State: payport.EventPending, NextAttemptAt: t0.Unix(),
	}
	update(t, st, func(tx payport.Tx) error { return tx.InsertEvent(context.Background(), &e) })
	d := newDispatcher(st, clock)

	deliverOnce(t, d, 1)
	m.WebhookContentType = payport.WebhookForm
	update(t, st, func(tx payport.Tx) error { return tx.UpdateMerchant(context.Background(), m) })
	clock.Advance(time.Minute)
	deliverOnce(t, d, 1)

	reqs := rcv.requests()
	if len(reqs) != 2 {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	want := []struct{ mime, body string }{
		{"application/json", `{"imp_uid":"imp_c","merchant_uid":"order 1/a","status":"cancelled","cancellation_id":"cncl_1"}`},
		{"application/x-www-form-urlencoded", "imp_uid=imp_c&merchant_uid=order+1%2Fa&status=cancelled&cancellation_id=cncl_1"},
	}
	for i, r := range reqs {
		if r.header.Get("Content-Type") != want[i].mime || r.body != want[i].body || r.verify != nil {
			t.Fatalf("request %d: %s %s (verify %v), want %s %s", i, r.header.Get("Content-Type"), r.body, r.verify, want[i].mime, want[i].body)
		}
	}
	checkAttempt(t, eventOf(t, st, e), payport.EventDelivered, 2, 200, t0.Unix()+60, 0)
}

func TestDispatcher_NonHTTPURLFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"ftp://shop.example/hook", "mailto:ops@shop.example", "/relative/hook", "http:///no-host", "://bad"} {
		t.Run(url, func(t *testing.T) {
			t.Parallel()
			st, clock := newStore(t), newClock()
			m := newMerchant(t, st, nil)
			e := addEvent(t, st, clock, m, url)
			deliverOnce(t, newDispatcher(st, clock), 1)
			got := eventOf(t, st, e)
			checkAttempt(t, got, payport.EventFailed, 1, 0, t0.Unix(), 0)
			if got.History[0].Error == "" {
				t.Fatalf("no error recorded")
			}
		})
	}
}

func TestDispatcher_RedirectIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	target := newReceiver(t, clock, m)
	from := httptest.NewServer(http.RedirectHandler(target.srv.URL, http.StatusFound))
	defer from.Close()
	e := addEvent(t, st, clock, m, from.URL)

	deliverOnce(t, newDispatcher(st, clock), 1)
	checkAttempt(t, eventOf(t, st, e), payport.EventPending, 1, http.StatusFound, t0.Unix(), t0.Unix()+60)
	if n := len(target.requests()); n != 0 {
		t.Fatalf("redirect followed: target got %d requests", n)
	}
}

func TestDispatcher_ExpiredLeaseIsClaimedAgain(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	rcv := newReceiver(t, clock, m)
	e := addEvent(t, st, clock, m, rcv.srv.URL)
	// A dispatcher that claims and dies before recording anything.
	update(t, st, func(tx payport.Tx) error {
		got, err := tx.ClaimEvents(context.Background(), t0.Unix(), t0.Add(2*time.Minute).Unix(), 10)
		if err == nil && len(got) != 1 {
			err = fmt.Errorf("claimed %d events", len(got))
		}
		return err
	})
	d := newDispatcher(st, clock)
	deliverOnce(t, d, 0)
	clock.Advance(2*time.Minute - time.Second)
	deliverOnce(t, d, 0) // the lease still holds
	clock.Advance(2 * time.Second)
	deliverOnce(t, d, 1)
	checkAttempt(t, eventOf(t, st, e), payport.EventDelivered, 1, 200, clock.Now().Unix(), 0)
	if n := len(rcv.requests()); n != 1 {
		t.Fatalf("receiver got %d requests", n)
	}
}

func TestDispatcher_NeedsStoreAndSecret(t *testing.T) {
	t.Parallel()
	d := &webhook.Dispatcher{Store: newStore(t)}
	if err := d.Run(context.Background()); err == nil {
		t.Fatal("Run without a Secret")
	}
	if _, err := d.DeliverOnce(context.Background()); err == nil {
		t.Fatal("DeliverOnce without a Secret")
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// running is a Run in a goroutine.
type running struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	err    error         // Run's result, once done is closed
}

// runDispatcher starts d.Run; the test's cleanup cancels it and waits for
// it to return.
func runDispatcher(t *testing.T, d *webhook.Dispatcher) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = d.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
			t.Error("Run did not return after the test")
		}
	})
	return r
}

// stop cancels Run and checks that it returns nil within the deadline.
func (r *running) stop(t *testing.T, within time.Duration) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("Run: %v", r.err)
		}
	case <-time.After(within):
		t.Fatalf("Run did not return within %s of its context ending", within)
	}
}

func TestRun_DeliversEveryEventExactlyOnceConcurrently(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	var (
		mu       sync.Mutex
		perID    = map[string]int{}
		inFlight atomic.Int64
		maxSeen  atomic.Int64
		overlap  = make(chan struct{})
		once     sync.Once
		bad      atomic.Int64
	)
	secret := secretOf(m)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if webhook.Verify(secret, r.Header, body, clock.Now(), time.Minute) != nil {
			bad.Add(1)
		}
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for seen := maxSeen.Load(); n > seen && !maxSeen.CompareAndSwap(seen, n); seen = maxSeen.Load() {
		}
		if n >= 2 {
			once.Do(func() { close(overlap) })
		}
		// The first request waits for a second one to overlap it (bounded,
		// so that a serial dispatcher fails the assertion rather than hangs).
		select {
		case <-overlap:
		case <-time.After(5 * time.Second):
			once.Do(func() { close(overlap) }) // no overlap came: stop waiting
		}
		mu.Lock()
		perID[r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	defer srv.Close()
	const total = 200
	update(t, st, func(tx payport.Tx) error {
		for i := range total {
			e := payport.Event{
				WebhookID: fmt.Sprintf("msg_run_%d", i), MerchantID: m.ID, URL: srv.URL, Type: "paid",
				IMPUID: fmt.Sprintf("imp_run_%d", i), MerchantUID: fmt.Sprintf("o%d", i), Status: "paid",
				CreatedAt: t0.Unix(), State: payport.EventPending, NextAttemptAt: t0.Unix(),
			}
			if err := tx.InsertEvent(context.Background(), &e); err != nil {
				return err
			}
		}
		return nil
	})
	d := newDispatcher(st, clock)
	d.Workers, d.Batch, d.Poll = 8, 16, 5*time.Millisecond
	run := runDispatcher(t, d)

	delivered := func() bool {
		events, err := st.EventsByMerchant(context.Background(), m.ID, 2*total)
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		for _, e := range events {
			if e.State != payport.EventDelivered {
				return false
			}
		}
		return len(events) == total
	}
	eventually(t, "200 deliveries", delivered)
	run.stop(t, 5*time.Second)

	mu.Lock()
	defer mu.Unlock()
	if len(perID) != total {
		t.Fatalf("receiver saw %d distinct webhook-ids, want %d", len(perID), total)
	}
	for id, n := range perID {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
	if maxSeen.Load() < 2 {
		t.Errorf("at most %d deliveries ran at once; want concurrency", maxSeen.Load())
	}
	if bad.Load() != 0 {
		t.Errorf("%d requests failed verification", bad.Load())
	}
	events, _ := st.EventsByMerchant(context.Background(), m.ID, 2*total)
	for _, e := range events {
		if e.Attempts != 1 || len(e.History) != 1 || e.History[0].HTTPStatus != 200 {
			t.Fatalf("event %s: %d attempts, history %+v", e.WebhookID, e.Attempts, e.History)
		}
	}
}

func TestRun_NotifyWakesTheIdleLoop(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	rcv := newReceiver(t, clock, m)
	d := newDispatcher(st, clock)
	d.Poll = time.Hour // only Notify can wake it in time
	runDispatcher(t, d)

	// Due in 10 s: the running loop finds nothing due and goes idle.
	e := payport.Event{
		WebhookID: "msg_notify", MerchantID: m.ID, URL: rcv.srv.URL, Type: "paid", IMPUID: "imp_n", MerchantUID: "o_n",
		Status: "paid", CreatedAt: t0.Unix(), State: payport.EventPending, NextAttemptAt: t0.Unix() + 10,
	}
	update(t, st, func(tx payport.Tx) error { return tx.InsertEvent(context.Background(), &e) })
	clock.Advance(10 * time.Second)
	d.Notify()
	eventually(t, "delivery after Notify", func() bool { return eventOf(t, st, e).State == payport.EventDelivered })
}

func TestRun_CancelFinishesAndRecordsInFlightDelivery(t *testing.T) {
	t.Parallel()
	st, clock := newStore(t), newClock()
	m := newMerchant(t, st, nil)
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
	}))
	defer srv.Close()
	e := addEvent(t, st, clock, m, srv.URL)
	d := newDispatcher(st, clock)
	run := runDispatcher(t, d)

	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery started")
	}
	run.cancel()
	select {
	case <-run.done:
		t.Fatal("Run returned while a delivery was in flight")
	default:
	}
	close(release)
	run.stop(t, 5*time.Second)
	checkAttempt(t, eventOf(t, st, e), payport.EventDelivered, 1, 200, t0.Unix(), 0)
}
