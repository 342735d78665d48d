package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/payport/payport"
)

// Defaults of the Dispatcher's zero fields (decisions §7).
const (
	DefaultWorkers        = 8                      // deliveries at once
	DefaultBatch          = 64                     // events per claim, at most
	DefaultLease          = 2 * time.Minute        // claim lease
	DefaultPoll           = 500 * time.Millisecond // idle wait
	DefaultBackoff        = time.Minute            // first retry delay, doubled per failed attempt
	DefaultConnectTimeout = 10 * time.Second       // default client's dial (and TLS handshake) timeout
	DefaultRequestTimeout = 30 * time.Second       // default client's overall timeout
)

// UserAgent is the User-Agent header of every delivery.
const UserAgent = "payport-webhook/1"

// Content types of the two body formats.
const (
	MIMEJSON = "application/json"                  // payport.WebhookJSON, the default
	MIMEForm = "application/x-www-form-urlencoded" // payport.WebhookForm
)

// discardLimit is how much of a receiver's answer is read (and thrown away)
// so that the connection can be reused; the body is never stored.
const discardLimit = 4 << 10

// maxErrorText caps the error text stored with an attempt.
const maxErrorText = 512

// maxDelay guards the doubling against overflow; with the default 1 min
// backoff it is reached only after 20 failed attempts.
const maxDelay = 365 * 24 * time.Hour

// Body returns the request body of an event and its MIME type: a JSON object
// {"imp_uid","merchant_uid","status"} with "cancellation_id" added when the
// event has one, or, for contentType "form", the same keys in the same order
// form-encoded. Any other contentType gives JSON, the default.
func Body(e payport.Event, contentType string) (body []byte, mime string) {
	if contentType == payport.WebhookForm {
		var b strings.Builder
		b.WriteString("imp_uid=" + url.QueryEscape(e.IMPUID))
		b.WriteString("&merchant_uid=" + url.QueryEscape(e.MerchantUID))
		b.WriteString("&status=" + url.QueryEscape(e.Status))
		if e.CancelID != "" {
			b.WriteString("&cancellation_id=" + url.QueryEscape(e.CancelID))
		}
		return []byte(b.String()), MIMEForm
	}
	body, err := json.Marshal(struct {
		IMPUID         string `json:"imp_uid"`
		MerchantUID    string `json:"merchant_uid"`
		Status         string `json:"status"`
		CancellationID string `json:"cancellation_id,omitempty"`
	}{e.IMPUID, e.MerchantUID, e.Status, e.CancelID})
	if err != nil { // strings always marshal
		panic(err)
	}
	return body, MIMEJSON
}

// Dispatcher delivers the webhook outbox. Set its fields, then call Run
// once (or DeliverOnce); do not change or copy it afterwards. Zero fields
// take the defaults noted beside them.
type Dispatcher struct {
	// Store holds the outbox; required.
	Store payport.Store
	// Clock is the server time of claims, attempts and signatures; nil
	// means payport.SystemClock. Tests inject one.
	Clock payport.Clock
	// Secret returns the merchant's whsec_ signing secret; required.
	Secret func(payport.Merchant) string
	// Client sends the requests. nil: a client with a 10 s connect (dialer)
	// and 30 s overall timeout that follows no redirects (a 3xx answer is a
	// failed attempt). A custom client should bound its requests likewise.
	Client *http.Client
	// Logger receives attempts and storage errors; nil discards.
	Logger *slog.Logger
	// Workers is how many deliveries run at once; 0 means 8.
	Workers int
	// Batch caps the events claimed in one transaction; 0 means 64.
	Batch int
	// Timeout bounds one delivery of the default client (connect, send,
	// answer); 0 means 30 s. Ignored when Client is set.
	Timeout time.Duration
	// Lease is how long a claim holds an event; 0 means twice the timeout
	// plus 10 s, at least 2 min unless Timeout is set. Run starts every
	// claimed event within one request time of its claim, so the lease must
	// exceed twice the client's timeout. A crashed dispatcher's events are
	// delivered again once their lease runs out.
	Lease time.Duration
	// Poll is how long Run waits when nothing was due; 0 means 500 ms.
	Poll time.Duration
	// Backoff is the delay before the first retry, doubled after each
	// further failed attempt; 0 means 1 min.
	Backoff time.Duration
	// OnAttempt, when set, learns the outcome of each recorded attempt:
	// the event's new state (delivered, pending for a retry, failed) and
	// how long the request took. For metrics; it must not block.
	OnAttempt func(state string, took time.Duration)

	once   sync.Once
	wake   chan struct{}
	client *http.Client
	log    *slog.Logger
}

func (d *Dispatcher) init() {
	d.once.Do(func() {
		d.wake = make(chan struct{}, 1)
		d.log = d.Logger
		if d.log == nil {
			d.log = slog.New(slog.DiscardHandler)
		}
		d.client = d.Client
		if d.client == nil {
			d.client = newClient(d.workers(), orDefault(d.Timeout, DefaultRequestTimeout))
		}
	})
}

// newClient is the default client: bounded connect and overall time, no
// redirects, and enough idle connections for every worker to reuse one.
func newClient(workers int, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: DefaultConnectTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   workers,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   DefaultConnectTimeout,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (d *Dispatcher) check() error {
	if d.Store == nil || d.Secret == nil {
		return errors.New("webhook: Dispatcher needs a Store and a Secret")
	}
	return nil
}

func (d *Dispatcher) now() time.Time {
	if d.Clock == nil {
		return payport.SystemClock{}.Now()
	}
	return d.Clock.Now()
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

func (d *Dispatcher) workers() int { return orDefault(d.Workers, DefaultWorkers) }

// lease is the claim lease: Lease, else long enough for two deliveries.
func (d *Dispatcher) lease() time.Duration {
	if d.Lease > 0 {
		return d.Lease
	}
	if d.Timeout > 0 {
		return 2*d.Timeout + 10*time.Second
	}
	return DefaultLease
}

// Notify wakes Run now, for example right after an event was committed. It
// never blocks.
func (d *Dispatcher) Notify() {
	d.init()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers due events until ctx is done, then stops claiming, lets the
// deliveries in flight finish (each is bounded by the client's timeout) and
// records them, and returns nil. It keeps up to Workers deliveries running
// and at most Workers more claimed and waiting, and claims again (up to
// Batch at once) as soon as fewer than Workers are outstanding, so a slow
// receiver holds up one worker, never a whole batch, and every claimed event
// starts well within its lease. When a claim comes back short it waits for
// Poll or Notify. Claimed events that had not started when ctx ended are
// left to their lease and claimed again later. Run returns an error only
// when the Dispatcher lacks its Store or Secret.
func (d *Dispatcher) Run(ctx context.Context) error {
	if err := d.check(); err != nil {
		return err
	}
	d.init()
	workers := d.workers()
	// The loop alone counts outstanding events; channels sized 2×workers
	// never block, since at most that many are outstanding.
	jobs := make(chan payport.Event, 2*workers)
	done := make(chan struct{}, 2*workers)
	work := context.WithoutCancel(ctx) // deliveries and their records outlive ctx
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for e := range jobs {
				if ctx.Err() == nil {
					if _, err := d.deliver(work, e); err != nil {
						d.log.Error("webhook delivery", "event", e.ID, "err", err)
					}
				}
				done <- struct{}{}
			}
		})
	}
	outstanding := 0
	for ctx.Err() == nil {
		for reaped := false; !reaped; {
			select {
			case <-done:
				outstanding--
			default:
				reaped = true
			}
		}
		if outstanding >= workers {
			select {
			case <-done:
				outstanding--
			case <-ctx.Done():
			}
			continue
		}
		n := min(orDefault(d.Batch, DefaultBatch), 2*workers-outstanding)
		events, err := d.claim(ctx, n)
		for _, e := range events {
			jobs <- e
			outstanding++
		}
		if err == nil && len(events) == n {
			continue // more may be due
		}
		if err != nil && ctx.Err() == nil {
			d.log.Error("webhook claim", "err", err)
		}
		d.idle(ctx)
	}
	close(jobs)
	wg.Wait()
	return nil
}

// idle waits for Poll, a Notify or the end of ctx.
func (d *Dispatcher) idle(ctx context.Context) {
	t := time.NewTimer(orDefault(d.Poll, DefaultPoll))
	defer t.Stop()
	select {
	case <-t.C:
	case <-d.wake:
	case <-ctx.Done():
	}
}

// DeliverOnce runs one round: it claims up to Batch due events, delivers
// them with at most Workers at once, records each attempt, and returns how
// many events it attempted. ctx bounds the claim; once claimed, deliveries
// already started finish and are recorded even if ctx ends, while those not
// yet started are left to their lease. The error is the claim's, or the
// storage errors of the round joined. Run does not use it, since a round
// waits for its slowest receiver.
func (d *Dispatcher) DeliverOnce(ctx context.Context) (int, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	d.init()
	events, err := d.claim(ctx, orDefault(d.Batch, DefaultBatch))
	if err != nil {
		return 0, err
	}
	work := context.WithoutCancel(ctx)
	sem := make(chan struct{}, d.workers())
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		attempted int
		errs      []error
	)
	for _, e := range events {
		if ctx.Err() != nil {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			ok, err := d.deliver(work, e)
			mu.Lock()
			defer mu.Unlock()
			if ok {
				attempted++
			}
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	return attempted, errors.Join(errs...)
}

// claim leases up to n due events in one transaction.
func (d *Dispatcher) claim(ctx context.Context, n int) ([]payport.Event, error) {
	now := d.now()
	lease := d.lease()
	var events []payport.Event
	err := d.Store.Update(ctx, func(tx payport.Tx) error {
		var err error
		events, err = tx.ClaimEvents(ctx, now.Unix(), now.Add(lease).Unix(), n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("webhook: claim events: %w", err)
	}
	return events, nil
}

// deliver makes one attempt at e and records it. It reports whether an
// attempt was made; the error is a storage failure, after which the event
// is left to its lease.
func (d *Dispatcher) deliver(ctx context.Context, e payport.Event) (bool, error) {
	m, err := d.Store.MerchantByID(ctx, e.MerchantID)
	if err != nil {
		return false, fmt.Errorf("webhook: event %d: load merchant %d: %w", e.ID, e.MerchantID, err)
	}
	at := d.now()
	status, errText, permanent, took := d.post(ctx, e, m, at)
	a := payport.Attempt{EventID: e.ID, AttemptedAt: at.Unix(), DurationMS: took.Milliseconds(), HTTPStatus: status, Error: errText}

	end := d.now()
	state, next := payport.EventDelivered, int64(0)
	attempts := e.Attempts + 1
	maxAttempts := orDefault(m.WebhookMaxAttempts, payport.DefaultWebhookMaxAttempts)
	switch {
	case status >= 200 && status < 300:
	case permanent || attempts >= maxAttempts:
		state = payport.EventFailed
	default:
		state = payport.EventPending
		next = end.Add(d.retryDelay(attempts)).Unix()
	}
	if err := d.Store.Update(ctx, func(tx payport.Tx) error { return tx.RecordAttempt(ctx, &a, state, next) }); err != nil {
		return true, fmt.Errorf("webhook: event %d: record attempt: %w", e.ID, err)
	}
	if d.OnAttempt != nil {
		d.OnAttempt(state, took)
	}
	level := slog.LevelDebug
	switch {
	case state == payport.EventFailed:
		level = slog.LevelWarn
	case state == payport.EventPending:
		level = slog.LevelInfo
	}
	d.log.Log(ctx, level, "webhook attempt", "event", e.ID, "webhook_id", e.WebhookID, "merchant", e.MerchantID,
		"attempt", attempts, "status", status, "error", errText, "duration_ms", a.DurationMS, "state", state, "next_attempt_at", next)
	return true, nil
}

// retryDelay is Backoff × 2^(attempts−1), capped only against overflow.
func (d *Dispatcher) retryDelay(attempts int) time.Duration {
	delay := orDefault(d.Backoff, DefaultBackoff)
	for i := 1; i < attempts && delay < maxDelay; i++ {
		delay *= 2
	}
	return min(delay, maxDelay)
}

// post sends e to its URL. It returns the HTTP status (0 without an
// answer), the error text, whether the failure is permanent (a URL that
// can never be delivered to; no request is made), and how long it took.
func (d *Dispatcher) post(ctx context.Context, e payport.Event, m payport.Merchant, at time.Time) (status int, errText string, permanent bool, took time.Duration) {
	u, err := url.Parse(e.URL)
	switch {
	case err != nil:
		return 0, truncate("invalid webhook URL: " + err.Error()), true, 0
	case u.Scheme != "http" && u.Scheme != "https":
		return 0, truncate(fmt.Sprintf("webhook URL scheme %q is not http or https", u.Scheme)), true, 0
	case u.Host == "":
		return 0, "webhook URL has no host", true, 0
	}
	body, mime := Body(e, m.WebhookContentType)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return 0, truncate("invalid webhook URL: " + err.Error()), true, 0
	}
	ts := at.Unix()
	req.Header.Set(HeaderID, e.WebhookID)
	req.Header.Set(HeaderTimestamp, fmt.Sprint(ts))
	req.Header.Set(HeaderSignature, Sign(d.Secret(m), e.WebhookID, ts, body))
	req.Header.Set("Content-Type", mime)
	req.Header.Set("User-Agent", UserAgent)

	start := time.Now() // elapsed wall time, not a rule: measured, not injected
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, truncate(describe(err)), false, time.Since(start)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, discardLimit))
	_ = resp.Body.Close()
	return resp.StatusCode, "", false, time.Since(start)
}

// describe drops the `Post "URL": ` prefix of a client error; the URL is
// stored with the event already.
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func truncate(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
